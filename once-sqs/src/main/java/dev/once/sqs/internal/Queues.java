package dev.once.sqs.internal;

import dev.once.BrokerUnavailableException;
import dev.once.ConfigurationException;
import dev.once.sqs.SqsSettings;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.CreateQueueRequest;
import software.amazon.awssdk.services.sqs.model.GetQueueAttributesRequest;
import software.amazon.awssdk.services.sqs.model.GetQueueUrlRequest;
import software.amazon.awssdk.services.sqs.model.ListQueuesRequest;
import software.amazon.awssdk.services.sqs.model.ListQueuesResponse;
import software.amazon.awssdk.services.sqs.model.PurgeQueueRequest;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.QueueNameExistsException;

/**
 * Once's queues on SQS: one per (destination, consumer group), named by {@link
 * SqsSettings#queueName}. Declares them (or checks that they exist), remembers their URLs, and
 * lists a destination's groups for the relay's fan-out: every queue whose name starts with the
 * destination's prefix is a bound group, as a binding row is for the table queue. The list is
 * trusted for {@code bindingRefresh}; a group declared in this process is seen at once, one
 * declared elsewhere within that time (SQS's ListQueues is itself eventually consistent).
 */
public final class Queues {
  /** A group queue of a destination. */
  public record Bound(String group, String url) {}

  /** The dead-letter queue a group queue's redrive policy names. */
  public record DeadLetterQueue(String name, String url) {}

  private static final Pattern TARGET =
      Pattern.compile("\"deadLetterTargetArn\"\\s*:\\s*\"([^\"]+)\"");

  private record Listing(List<Bound> queues, long at) {}

  private final SqsAsyncClient client;
  private final SqsSettings settings;
  private final Map<String, String> urls = new ConcurrentHashMap<>();
  private final Map<String, Listing> bindings = new ConcurrentHashMap<>();

  public Queues(SqsAsyncClient client, SqsSettings settings) {
    this.client = client;
    this.settings = settings;
  }

  /** Creates the group's queue if missing (or checks it exists); returns its URL. */
  public String declare(String destination, String group) {
    String name = settings.queueName(destination, group);
    String url = urls.get(name);
    if (url == null) {
      url = settings.createQueues() ? create(name) : existing(name);
      urls.put(name, url);
      bindings.remove(destination);
    }
    return url;
  }

  private String create(String name) {
    Map<QueueAttributeName, String> a = new EnumMap<>(QueueAttributeName.class);
    a.put(
        QueueAttributeName.MESSAGE_RETENTION_PERIOD,
        Long.toString(settings.messageRetention().toSeconds()));
    a.put(
        QueueAttributeName.VISIBILITY_TIMEOUT,
        Long.toString(settings.visibilityTimeout().toSeconds()));
    if (settings.fifo()) {
      a.put(QueueAttributeName.FIFO_QUEUE, "true");
    }
    try {
      return call(
              "create queue " + name,
              client.createQueue(
                  CreateQueueRequest.builder().queueName(name).attributes(a).build()))
          .queueUrl();
    } catch (BrokerUnavailableException e) {
      if (e.getCause() instanceof QueueNameExistsException) {
        return existing(name); // made by hand or by another setting: used as it is
      }
      throw e;
    }
  }

  private String existing(String name) {
    try {
      return call(
              "get queue url " + name,
              client.getQueueUrl(GetQueueUrlRequest.builder().queueName(name).build()))
          .queueUrl();
    } catch (BrokerUnavailableException e) {
      if (e.getCause() instanceof QueueDoesNotExistException) {
        throw new ConfigurationException(
            "sqs.queue",
            "'"
                + name
                + "' does not exist and the transport does not create queues"
                + " (SqsTransport.builder().createQueues(false)): create it, "
                + (settings.fifo() ? "as a FIFO queue" : "as a standard queue"));
      }
      throw e;
    }
  }

  /**
   * Refuses an ordered consumer on standard queues, which hand a key's messages to competing
   * receivers in no order; on FIFO queues a key (the message group) keeps its order.
   */
  public void checkKeyOrder(String destination, String group) {
    if (!settings.fifo()) {
      throw new ConfigurationException(
          "consumer.ordered",
          "true is refused for consumer '"
              + group
              + "' on destination '"
              + destination
              + "': a standard SQS queue hands a key's messages to competing receivers in no"
              + " order; use FIFO queues (SqsTransport.builder().fifo(true), where the event key"
              + " is the MessageGroupId)");
    }
  }

  /** The URL of the group's queue, declared or looked up. */
  public String url(String destination, String group) {
    String name = settings.queueName(destination, group);
    String url = urls.get(name);
    return url != null ? url : urls.computeIfAbsent(name, this::existing);
  }

  /** The URL of the group's queue, or empty when it does not exist (yet). */
  public Optional<String> urlIfExists(String destination, String group) {
    String name = settings.queueName(destination, group);
    String url = urls.get(name);
    if (url != null) {
      return Optional.of(url);
    }
    try {
      url =
          call(
                  "get queue url " + name,
                  client.getQueueUrl(GetQueueUrlRequest.builder().queueName(name).build()))
              .queueUrl();
    } catch (BrokerUnavailableException e) {
      if (e.getCause() instanceof QueueDoesNotExistException) {
        return Optional.empty();
      }
      throw e;
    }
    urls.put(name, url);
    return Optional.of(url);
  }

  /** The destination's group queues, as SQS lists them (see above). */
  public List<Bound> bound(String destination) {
    Listing l = bindings.get(destination);
    long now = System.nanoTime();
    if (l != null && now - l.at() < settings.bindingRefresh().toNanos()) {
      return l.queues();
    }
    List<Bound> found = list(destination);
    if (!found.isEmpty()) {
      bindings.put(destination, new Listing(found, now));
    }
    return found;
  }

  /** Forgets what was listed for {@code destination}: a queue of it was found gone. */
  public void forget(String destination) {
    bindings.remove(destination);
    urls.keySet().removeIf(name -> name.startsWith(settings.destinationPrefix(destination)));
  }

  private List<Bound> list(String destination) {
    List<Bound> found = new ArrayList<>();
    String token = null;
    do {
      ListQueuesResponse r =
          call(
              "list queues of " + destination,
              client.listQueues(
                  ListQueuesRequest.builder()
                      .queueNamePrefix(settings.destinationPrefix(destination))
                      .maxResults(1000)
                      .nextToken(token)
                      .build()));
      for (String url : r.queueUrls()) {
        String group = settings.groupOf(destination, url.substring(url.lastIndexOf('/') + 1));
        if (group != null) {
          found.add(new Bound(group, url));
        }
      }
      token = r.nextToken();
    } while (token != null);
    return List.copyOf(found);
  }

  /**
   * The dead-letter queue of the group's redrive policy, or empty when the group queue does not
   * exist or has no redrive policy. SQS keeps a dead-letter queue in the group queue's account and
   * region, so the last part of its ARN is its name.
   */
  public Optional<DeadLetterQueue> deadLetterQueue(String destination, String group) {
    return urlIfExists(destination, group)
        .map(url -> attributes(url, QueueAttributeName.REDRIVE_POLICY).get("RedrivePolicy"))
        .map(TARGET::matcher)
        .filter(Matcher::find)
        .map(m -> m.group(1).substring(m.group(1).lastIndexOf(':') + 1))
        .map(
            name ->
                new DeadLetterQueue(
                    name,
                    call(
                            "get queue url " + name,
                            client.getQueueUrl(
                                GetQueueUrlRequest.builder().queueName(name).build()))
                        .queueUrl()));
  }

  /** Visible messages in the group's dead-letter queue; 0 without one. */
  public long deadLettered(String destination, String group) {
    return deadLetterQueue(destination, group)
        .map(
            q ->
                Long.parseLong(
                    attributes(q.url(), QueueAttributeName.APPROXIMATE_NUMBER_OF_MESSAGES)
                        .getOrDefault("ApproximateNumberOfMessages", "0")))
        .orElse(0L);
  }

  /** A reader of the group's dead-letter queue (reading nothing without one). */
  public SqsDeadLetterReader deadLetterReader(String destination, String group) {
    return new SqsDeadLetterReader(
        client,
        this,
        destination,
        settings.queueName(destination, group),
        deadLetterQueue(destination, group).map(DeadLetterQueue::url).orElse(null));
  }

  /** Some of the queue's attributes, as SQS answers them. */
  public Map<String, String> attributes(String url, QueueAttributeName... names) {
    return call(
            "get attributes of " + url,
            client.getQueueAttributes(
                GetQueueAttributesRequest.builder().queueUrl(url).attributeNames(names).build()))
        .attributesAsStrings();
  }

  public void purge(String url) {
    call("purge " + url, client.purgeQueue(PurgeQueueRequest.builder().queueUrl(url).build()));
  }

  /** Waits for {@code f} at most the request timeout; SQS's refusal or silence as an exception. */
  <T> T call(String what, CompletableFuture<T> f) {
    try {
      return f.get(settings.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw BrokerUnavailableException.failed("SQS", what, e.getCause());
    } catch (TimeoutException e) {
      f.cancel(true);
      throw BrokerUnavailableException.failed("SQS", what, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw BrokerUnavailableException.failed("SQS", what, e);
    }
  }
}
