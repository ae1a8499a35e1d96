package dev.once.sqs;

import dev.once.ConfigurationException;
import dev.once.Event;
import dev.once.RetentionPolicy;
import dev.once.spi.BrokerDeadLetterReader;
import dev.once.spi.BrokerDeadLetters;
import dev.once.spi.PublishLimits;
import dev.once.spi.PublishResult;
import dev.once.spi.QueueAdmin;
import dev.once.spi.QueueOrder;
import dev.once.spi.Receiver;
import dev.once.spi.Replay;
import dev.once.spi.RetentionCheck;
import dev.once.spi.Transport;
import dev.once.sqs.internal.Clients;
import dev.once.sqs.internal.MessageCodec;
import dev.once.sqs.internal.Publisher;
import dev.once.sqs.internal.Queues;
import dev.once.sqs.internal.SqsReceiver;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * Once's events over Amazon SQS (AWS SDK for Java v2, no Spring), on standard or FIFO queues. Each
 * consumer group of a destination has its own queue, {@code <prefix><destination>__<group>} ({@code
 * .fifo} on FIFO); the relay sends each event to every group queue of its destination, with {@code
 * SendMessageBatch}, the event id as the message attribute {@code once-event-id} (and, on FIFO, as
 * the {@code MessageDeduplicationId}; the key is the {@code MessageGroupId}). A receiver long-polls
 * its group's queue, keeps what it holds invisible while its batch runs, deletes a message only
 * after the database commit, and returns a failed one with Once's backoff as its visibility
 * timeout. SQS keeps no order on a standard queue and deduplicates a FIFO queue's sends for 5
 * minutes only: Once's inbox marker is what makes a redelivery a {@code DUPLICATE}.
 *
 * <p>Capabilities: {@link PublishLimits} (SQS's size and attribute limits, at {@code tx.publish}),
 * {@link Replay} (to the one group's queue), {@link QueueAdmin} (approximate depth), {@link
 * RetentionCheck} (the queues' retention), {@link BrokerDeadLetters} (the dead-letter queue of a
 * group queue's redrive policy, where it has one), {@link QueueOrder} (FIFO queues only: an ordered
 * consumer's key lane fed by every receiver). See docs/SQS.md.
 */
public final class SqsTransport
    implements Transport,
        PublishLimits,
        Replay,
        QueueAdmin,
        RetentionCheck,
        BrokerDeadLetters,
        QueueOrder {
  private final SqsSettings settings;
  private final SqsAsyncClient client;
  private final boolean ownsClient;
  private final Queues queues;
  private final Publisher publisher;
  private final Set<SqsReceiver> receivers = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService timer;
  private volatile boolean closed;

  private SqsTransport(SqsSettings settings, SqsAsyncClient client, boolean ownsClient) {
    this.settings = settings;
    this.client = client;
    this.ownsClient = ownsClient;
    this.queues = new Queues(client, settings);
    this.publisher = new Publisher(client, settings, queues);
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "once-sqs-visibility");
              t.setDaemon(true);
              return t;
            });
    long tick = Math.max(100, settings.visibilityTimeout().toMillis() / 4);
    timer.scheduleWithFixedDelay(this::extend, tick, tick, TimeUnit.MILLISECONDS);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The settings this transport runs with. */
  public SqsSettings settings() {
    return settings;
  }

  /** The SDK client this transport calls SQS with. */
  public SqsAsyncClient client() {
    return client;
  }

  @Override
  public String name() {
    return settings.fifo() ? "sqs-fifo" : "sqs";
  }

  @Override
  public void declare(String destination, String consumerId) {
    checkOpen();
    queues.declare(destination, consumerId);
  }

  /**
   * FIFO queues: every receiver may feed an ordered consumer's key lane (docs/ORDERING.md, "Ordered
   * on SQS FIFO"). Standard queues keep no key order: a {@link ConfigurationException}.
   */
  @Override
  public void deliverInQueueOrder(String destination, String consumerId, int batch) {
    queues.checkKeyOrder(destination, consumerId);
  }

  @Override
  public void checkPublishable(Event event) {
    MessageCodec.check(event, settings.maxMessageBytes());
  }

  @Override
  public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
    checkOpen();
    return publisher.publish(batch, confirmTimeout);
  }

  /** Sends {@code event} to {@code consumerId}'s queue only, with a fresh deduplication id. */
  @Override
  public PublishResult redeliver(Event event, String consumerId, Duration confirmTimeout) {
    checkOpen();
    return publisher.publishTo(event, queues.url(event.destination(), consumerId), confirmTimeout);
  }

  @Override
  public Receiver receiver(String destination, String consumerId) {
    checkOpen();
    String url = queues.declare(destination, consumerId);
    SqsReceiver r = new SqsReceiver(client, settings, destination, url, receivers::remove);
    receivers.add(r);
    return r;
  }

  /**
   * Visible plus in-flight plus delayed messages of the group's queue, from its approximate
   * attributes (SQS's numbers lag by up to a minute); 0 for a queue that does not exist yet.
   */
  @Override
  public OptionalLong depth(String destination, String consumerId) {
    return OptionalLong.of(
        queueAttributes(destination, consumerId).values().stream()
            .mapToLong(Long::parseLong)
            .sum());
  }

  /**
   * The approximate counts of the group's queue by SQS's attribute names ({@code
   * ApproximateNumberOfMessages}: visible, {@code …NotVisible}: in flight, {@code …Delayed}); none
   * for a queue that does not exist yet.
   */
  public Map<String, String> queueAttributes(String destination, String consumerId) {
    return queues
        .urlIfExists(destination, consumerId)
        .map(
            url ->
                queues.attributes(
                    url,
                    QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES,
                    QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_NOT_VISIBLE,
                    QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES_DELAYED))
        .orElse(Map.of());
  }

  /** Whether the group's queue exists. */
  @Override
  public boolean hasGroup(String destination, String consumerId) {
    return queues.urlIfExists(destination, consumerId).isPresent();
  }

  /**
   * Visible messages in the dead-letter queue of the group queue's redrive policy (SQS moved them
   * there after {@code maxReceiveCount} receives); 0 without a redrive policy. Once declares none:
   * a redrive policy is the user's (docs/SQS.md).
   */
  @Override
  public long count(String destination, String consumerId) {
    return queues.deadLettered(destination, consumerId);
  }

  /**
   * Reads the dead-letter queue of the group queue's redrive policy (empty without one); what it
   * read and did not acknowledge becomes visible there again when it is closed.
   */
  @Override
  public BrokerDeadLetterReader reader(String destination, String consumerId) {
    return queues.deadLetterReader(destination, consumerId);
  }

  /** The name of the dead-letter queue of the group queue's redrive policy, if it has one. */
  public Optional<String> deadLetterQueueName(String destination, String consumerId) {
    return queues.deadLetterQueue(destination, consumerId).map(Queues.DeadLetterQueue::name);
  }

  /** {@code PurgeQueue} (real SQS allows one a minute per queue); nothing if it does not exist. */
  @Override
  public void purge(String destination, String consumerId) {
    queues.urlIfExists(destination, consumerId).ifPresent(queues::purge);
  }

  /**
   * Refuses a policy whose redelivery horizon is shorter than the retention of the queues this
   * transport creates: SQS hands a message out again for as long as it keeps it, and an inbox
   * marker deleted before that lets it run the business action a second time.
   */
  @Override
  public void checkRetention(RetentionPolicy retention) {
    if (retention.redeliveryHorizon().compareTo(settings.messageRetention()) < 0) {
      throw new ConfigurationException(
          "retention.redeliveryHorizon",
          "must be at least the SQS queues' message retention ("
              + settings.messageRetention()
              + "), was "
              + retention.redeliveryHorizon()
              + ": SQS can hand a message out again as long as it keeps it, and an inbox marker"
              + " deleted before that lets it run the business action a second time. Set"
              + " RetentionPolicy.builder().redeliveryHorizon("
              + settings.messageRetention()
              + "), or a shorter SqsTransport.builder().messageRetention(..)");
    }
  }

  private void extend() {
    long now = System.nanoTime();
    for (SqsReceiver r : receivers) {
      try {
        r.extend(now);
      } catch (RuntimeException e) {
        // the next tick tries again; a message not extended comes back as a crash's would
      }
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the SQS transport is closed");
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (SqsReceiver r : List.copyOf(receivers)) {
      r.close();
    }
    timer.shutdownNow();
    if (ownsClient) {
      client.close();
    }
  }

  /** The settings of an {@link SqsTransport}; see docs/SQS.md for each. */
  public static final class Builder {
    private final SqsSettings.Mutable s = new SqsSettings.Mutable();
    private SqsAsyncClient client;
    private AwsCredentialsProvider credentials;

    private Builder() {}

    /**
     * The SDK client to use (a Spring context's, say); the transport does not close it. Without one
     * the transport makes its own from {@link #endpoint}, {@link #region}, {@link #credentials} and
     * the SDK's default chain.
     */
    public Builder client(SqsAsyncClient client) {
      this.client = client;
      return this;
    }

    /** An endpoint other than AWS's (ElasticMQ, LocalStack, a VPC endpoint). Default: AWS's. */
    public Builder endpoint(URI endpoint) {
      s.endpoint = endpoint;
      return this;
    }

    /** The AWS region, e.g. {@code eu-west-1}. Default: the SDK's default chain. */
    public Builder region(String region) {
      s.region = region;
      return this;
    }

    /** Credentials other than the SDK's default chain. */
    public Builder credentials(AwsCredentialsProvider credentials) {
      this.credentials = credentials;
      return this;
    }

    /** Put before every queue name. Default none. */
    public Builder namePrefix(String namePrefix) {
      s.namePrefix = namePrefix;
      return this;
    }

    /** FIFO queues ({@code .fifo}): order per key, 5-minute deduplication. Default standard. */
    public Builder fifo(boolean fifo) {
      s.fifo = fifo;
      return this;
    }

    /** Whether {@code declare} creates missing queues; otherwise it checks them. Default true. */
    public Builder createQueues(boolean createQueues) {
      s.createQueues = createQueues;
      return this;
    }

    /**
     * How long a received message stays invisible to other receivers, renewed while its batch runs
     * (at most 12 hours from a receive); also how long a killed worker's messages take to come
     * back. Default 30 s.
     */
    public Builder visibilityTimeout(Duration visibilityTimeout) {
      s.visibilityTimeout = visibilityTimeout;
      return this;
    }

    /** The long poll of each receive, 0 to 20 s. Default 20 s. */
    public Builder receiveWait(Duration receiveWait) {
      s.receiveWait = receiveWait;
      return this;
    }

    /** Receives each receiver keeps going at once. Default 2. */
    public Builder receivesInFlight(int receivesInFlight) {
      s.receivesInFlight = receivesInFlight;
      return this;
    }

    /** SendMessageBatch calls the relay keeps going at once per group queue. Default 8. */
    public Builder sendsInFlight(int sendsInFlight) {
      s.sendsInFlight = sendsInFlight;
      return this;
    }

    /**
     * The largest message (body and attributes, bytes) {@code tx.publish} accepts, and the most a
     * send call carries. Default 262 144 (256 KiB); SQS now takes up to 1 MiB.
     */
    public Builder maxMessageBytes(int maxMessageBytes) {
      s.maxMessageBytes = maxMessageBytes;
      return this;
    }

    /**
     * How long queues the transport creates keep a message. Default 1 day, the default {@code
     * RetentionPolicy}'s redelivery horizon, which must not be shorter.
     */
    public Builder messageRetention(Duration messageRetention) {
      s.messageRetention = messageRetention;
      return this;
    }

    /** How long the relay trusts its list of a destination's group queues. Default 5 s. */
    public Builder bindingRefresh(Duration bindingRefresh) {
      s.bindingRefresh = bindingRefresh;
      return this;
    }

    /** The longest wait for an admin call (create, list, attributes). Default 30 s. */
    public Builder requestTimeout(Duration requestTimeout) {
      s.requestTimeout = requestTimeout;
      return this;
    }

    public SqsTransport build() {
      SqsSettings settings = settings();
      if (client != null) {
        return new SqsTransport(settings, client, false);
      }
      return new SqsTransport(settings, Clients.create(settings, credentials), true);
    }

    /**
     * The validated settings, without a transport.
     *
     * @throws ConfigurationException naming the first bad setting
     */
    public SqsSettings settings() {
      return s.freeze();
    }
  }
}
