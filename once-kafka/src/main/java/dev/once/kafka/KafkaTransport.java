package dev.once.kafka;

import dev.once.ConfigurationException;
import dev.once.Event;
import dev.once.RetentionPolicy;
import dev.once.kafka.internal.GroupConsumer;
import dev.once.kafka.internal.Publisher;
import dev.once.kafka.internal.Topics;
import dev.once.spi.KeyOrder;
import dev.once.spi.PublishResult;
import dev.once.spi.QueueAdmin;
import dev.once.spi.Receiver;
import dev.once.spi.Replay;
import dev.once.spi.RetentionCheck;
import dev.once.spi.Transport;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * Once's events over Kafka ({@code kafka-clients}, no Spring). A destination is a topic; a consumer
 * group of a destination is a Kafka consumer group {@code <prefix><destination>.<group>}; the event
 * key is the record key, so one key stays in one partition, in order.
 *
 * <p>Publishing uses one idempotent producer ({@code acks=all}, bounded {@code
 * delivery.timeout.ms}); an event counts as confirmed only when its send completed. Consuming uses
 * one Kafka consumer per (destination, group) and process, polled by its own thread, that hands
 * records out to the consumer's workers (one {@link Receiver} each) so that one key is in one
 * worker at a time while other keys of the same partition run in parallel. Offsets are committed
 * only up to the highest contiguous record that was acknowledged (after the database commit) + 1.
 *
 * <p>Capabilities: {@link Replay} (a header names the one group), {@link QueueAdmin} (depth = the
 * group's lag), {@link RetentionCheck} (the topics' retention), {@link KeyOrder} (with a key lane
 * in Once's database for parked keys). See docs/KAFKA.md.
 */
public final class KafkaTransport
    implements Transport, Replay, QueueAdmin, RetentionCheck, KeyOrder {
  private final KafkaSettings settings;
  private final Topics topics;
  private final Publisher publisher;
  private final Map<String, GroupConsumer> consumers = new ConcurrentHashMap<>();
  private final Set<String> inKeyOrder = ConcurrentHashMap.newKeySet();
  private final Function<Properties, Consumer<byte[], byte[]>> clients;
  private volatile boolean closed;

  private KafkaTransport(
      KafkaSettings settings, Function<Properties, Consumer<byte[], byte[]>> clients) {
    this.settings = settings;
    this.clients = clients;
    this.topics = new Topics(settings);
    this.publisher = new Publisher(settings, topics);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A transport with default settings for the cluster at {@code bootstrapServers}. */
  public static KafkaTransport create(String bootstrapServers) {
    return builder().bootstrapServers(bootstrapServers).build();
  }

  /** The settings this transport runs with. */
  public KafkaSettings settings() {
    return settings;
  }

  @Override
  public String name() {
    return "kafka";
  }

  @Override
  public void declare(String destination, String consumerId) {
    settings.groupId(destination, consumerId); // checks the names
    topics.ensure(destination);
  }

  @Override
  public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
    checkOpen();
    return publisher.publish(batch, confirmTimeout);
  }

  /**
   * Kafka cannot address one consumer group on a shared topic, so the record goes to the topic with
   * a {@value GroupConsumer#REPLAY_FOR} header naming the group's Kafka group id; every other
   * group's consumer skips it (its offset moves on) without handing it to a handler. A replay thus
   * reaches only the group that failed, whatever other groups' markers retention has deleted.
   */
  @Override
  public PublishResult redeliver(Event event, String consumerId, Duration confirmTimeout) {
    Map<String, String> headers = new LinkedHashMap<>(event.headers());
    headers.put(GroupConsumer.REPLAY_FOR, settings.groupId(event.destination(), consumerId));
    return publish(List.of(event.withHeaders(headers)), confirmTimeout);
  }

  @Override
  public Receiver receiver(String destination, String consumerId) {
    checkOpen();
    String groupId = settings.groupId(destination, consumerId);
    GroupConsumer consumer =
        consumers.computeIfAbsent(
            groupId,
            id -> {
              topics.ensure(destination);
              GroupConsumer fresh =
                  new GroupConsumer(
                      settings, destination, settings.topic(destination), id, clients);
              if (inKeyOrder.contains(id)) {
                fresh.inKeyOrder();
              }
              return fresh;
            });
    return consumer.newReceiver();
  }

  /**
   * Hands the group's records to its workers in key order: a key's next record only after the one
   * before it was acknowledged, a nacked record still first of its key. The consumer keeps the rest
   * of an ordered consumer's promise in its database: a dead-lettered record parks its key, and the
   * key's later records are diverted into a lane there until a replay or discard (docs/ORDERING.md,
   * "Ordered on a broker").
   */
  @Override
  public void deliverInKeyOrder(String destination, String consumerId) {
    String groupId = settings.groupId(destination, consumerId);
    inKeyOrder.add(groupId);
    GroupConsumer running = consumers.get(groupId);
    if (running != null) {
      running.inKeyOrder();
    }
  }

  /** This process's consumer of (destination, group), if a receiver was asked for: for tests. */
  GroupConsumer consumerOf(String destination, String consumerId) {
    return consumers.get(settings.groupId(destination, consumerId));
  }

  @Override
  public OptionalLong depth(String destination, String consumerId) {
    return topics.lag(destination, settings.groupId(destination, consumerId));
  }

  @Override
  public void purge(String destination, String consumerId) {
    String groupId = settings.groupId(destination, consumerId);
    GroupConsumer running = consumers.remove(groupId);
    if (running != null) {
      running.close();
    }
    topics.skipToEnd(destination, groupId);
  }

  /**
   * Refuses a policy whose redelivery horizon is shorter than the topics' retention: Kafka can hand
   * a record out again for as long as it is retained (a consumer group whose committed offsets
   * expired starts again from the oldest retained record, {@code auto.offset.reset=earliest}), and
   * an inbox marker deleted before that lets it run the business action a second time.
   */
  @Override
  public void checkRetention(RetentionPolicy retention) {
    if (retention.redeliveryHorizon().compareTo(settings.topicRetention()) < 0) {
      throw new ConfigurationException(
          "retention.redeliveryHorizon",
          "must be at least the Kafka topic retention ("
              + settings.topicRetention()
              + "), was "
              + retention.redeliveryHorizon()
              + ": Kafka can hand a record out again as long as it is retained (also after its"
              + " group's committed offsets expired), and an inbox marker deleted before that lets"
              + " it run the business action a second time. Set"
              + " RetentionPolicy.builder().redeliveryHorizon("
              + settings.topicRetention()
              + "), or a shorter KafkaTransport.builder().topicRetention(..) if the cluster keeps"
              + " Once's topics shorter");
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("the Kafka transport is closed");
    }
  }

  @Override
  public void close() {
    closed = true;
    for (GroupConsumer c : consumers.values()) {
      c.close();
    }
    consumers.clear();
    publisher.close();
    topics.close();
  }

  /** The settings of a {@link KafkaTransport}; see docs/KAFKA.md for each. */
  public static final class Builder {
    private final KafkaSettings.Mutable s = new KafkaSettings.Mutable();
    private Function<Properties, Consumer<byte[], byte[]>> clients = KafkaConsumer::new;

    private Builder() {}

    /** {@code host:port[,host:port…]}. Default {@code 127.0.0.1:9092}. */
    public Builder bootstrapServers(String bootstrapServers) {
      s.bootstrapServers = bootstrapServers;
      return this;
    }

    /** Put before every topic and consumer-group name. Default none. */
    public Builder namePrefix(String namePrefix) {
      s.namePrefix = namePrefix;
      return this;
    }

    /** Partitions of the topics the transport creates. Default 6. */
    public Builder partitions(int partitions) {
      s.partitions = partitions;
      return this;
    }

    /** Replication factor of created topics; default -1, the broker's default. */
    public Builder replicationFactor(int replicationFactor) {
      s.replicationFactor = (short) replicationFactor;
      return this;
    }

    /**
     * How long the cluster keeps records of Once's topics; topics the transport creates get it as
     * {@code retention.ms}. Default 1 day, the default {@code RetentionPolicy}'s redelivery
     * horizon, which must not be shorter (checked when {@code Once} is built).
     */
    public Builder topicRetention(Duration topicRetention) {
      s.topicRetention = topicRetention;
      return this;
    }

    /** The producer's {@code delivery.timeout.ms}: a send that takes longer fails. Default 30 s. */
    public Builder deliveryTimeout(Duration deliveryTimeout) {
      s.deliveryTimeout = deliveryTimeout;
      return this;
    }

    /**
     * Records polled but not yet acknowledged, per (destination, group) and process; above it the
     * partitions are paused until half of them are done. Default 1 000.
     */
    public Builder maxInFlight(int maxInFlight) {
      s.maxInFlight = maxInFlight;
      return this;
    }

    /** How long a revoked partition waits for its in-flight records before it is released. */
    public Builder revokeTimeout(Duration revokeTimeout) {
      s.revokeTimeout = revokeTimeout;
      return this;
    }

    /** Longest hold of a nacked record before it is handed out again. Default 30 s. */
    public Builder maxNackDelay(Duration maxNackDelay) {
      s.maxNackDelay = maxNackDelay;
      return this;
    }

    /** How often acknowledged offsets are committed (asynchronously). Default 200 ms. */
    public Builder commitInterval(Duration commitInterval) {
      s.commitInterval = commitInterval;
      return this;
    }

    /** The consumers' {@code session.timeout.ms}. Default 45 s (Kafka's). */
    public Builder sessionTimeout(Duration sessionTimeout) {
      s.sessionTimeout = sessionTimeout;
      return this;
    }

    /**
     * How long this process's consumer of a (destination, group) keeps its partitions once none of
     * its receivers is open (its {@code Consumer} was closed while the transport stays open): then
     * it leaves the group, with a clean handover, so that the other members take its partitions; it
     * joins again when a receiver is asked for. Longer than a worker's pause between a crash and
     * its next receiver (at most 5 s). Default 10 s.
     */
    public Builder leaveAfterIdle(Duration leaveAfterIdle) {
      s.leaveAfterIdle = leaveAfterIdle;
      return this;
    }

    /** Any other client property, for producer, consumer and admin client alike (TLS, SASL…). */
    public Builder property(String name, String value) {
      s.extra.put(name, value);
      return this;
    }

    /**
     * How the transport makes its Kafka consumers from their properties; {@code
     * KafkaConsumer::new}. For tests of this package, which wrap the client to make a call fail.
     */
    Builder clients(Function<Properties, Consumer<byte[], byte[]>> clients) {
      this.clients = clients;
      return this;
    }

    public KafkaTransport build() {
      return new KafkaTransport(settings(), clients);
    }

    /**
     * The validated settings, without a transport: for a framework that checks its configuration
     * before it starts anything.
     *
     * @throws ConfigurationException naming the first bad setting
     */
    public KafkaSettings settings() {
      return s.freeze();
    }
  }
}
