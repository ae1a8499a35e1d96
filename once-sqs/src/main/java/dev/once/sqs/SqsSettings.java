package dev.once.sqs;

import dev.once.ConfigurationException;
import java.net.URI;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * The validated settings of an {@link SqsTransport}; see docs/SQS.md for each. Built by {@link
 * SqsTransport.Builder}.
 *
 * @param endpoint the SQS endpoint, or null for the SDK's default (from the region)
 * @param region the AWS region, or null for the SDK's default chain
 * @param namePrefix put before every queue name
 * @param fifo whether Once's queues are FIFO queues ({@code .fifo}, ordered per key, deduplicated
 *     by event id for 5 minutes)
 * @param createQueues whether {@code declare} creates missing queues (otherwise it only checks that
 *     they exist)
 * @param visibilityTimeout how long a received message stays invisible; extended while its batch
 *     runs
 * @param receiveWait the long poll of each ReceiveMessage call (0 to 20 s)
 * @param receivesInFlight ReceiveMessage calls each receiver keeps going at once
 * @param sendsInFlight SendMessageBatch calls the relay keeps going at once
 * @param maxMessageBytes the largest message (body and attributes) {@code tx.publish} accepts
 * @param messageRetention how long created queues keep a message ({@code MessageRetentionPeriod})
 * @param bindingRefresh how long the relay trusts the list of a destination's groups
 * @param requestTimeout the longest wait for a delete, a visibility change or an admin call
 */
public record SqsSettings(
    URI endpoint,
    String region,
    String namePrefix,
    boolean fifo,
    boolean createQueues,
    Duration visibilityTimeout,
    Duration receiveWait,
    int receivesInFlight,
    int sendsInFlight,
    int maxMessageBytes,
    Duration messageRetention,
    Duration bindingRefresh,
    Duration requestTimeout) {

  /** The separator of destination and group in a queue name: SQS names allow no dot. */
  public static final String SEPARATOR = "__";

  /** The longest a message may stay invisible after one receive: 12 hours. */
  public static final Duration MAX_VISIBILITY = Duration.ofHours(12);

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*");

  /** The queue of (destination, group): {@code <prefix><destination>__<group>[.fifo]}. */
  public String queueName(String destination, String group) {
    String name =
        namePrefix
            + check("sqs.destination", destination)
            + SEPARATOR
            + check("sqs.group", group)
            + (fifo ? ".fifo" : "");
    if (name.length() > 80) {
      throw new ConfigurationException(
          "sqs.queueName",
          "must be at most 80 characters (an SQS limit), was "
              + name.length()
              + " for '"
              + name
              + "': shorten the destination, the consumer id or the name prefix");
    }
    return name;
  }

  /** The prefix every group queue of {@code destination} starts with. */
  public String destinationPrefix(String destination) {
    return namePrefix + check("sqs.destination", destination) + SEPARATOR;
  }

  /**
   * The group of a queue name found under {@link #destinationPrefix}, or null when the queue is not
   * one of this destination's (another destination's that shares the prefix, or the other kind of
   * queue).
   */
  public String groupOf(String destination, String queueName) {
    String prefix = destinationPrefix(destination);
    if (!queueName.startsWith(prefix) || queueName.endsWith(".fifo") != fifo) {
      return null;
    }
    String group = queueName.substring(prefix.length(), queueName.length() - (fifo ? 5 : 0));
    return NAME.matcher(group).matches() ? group : null;
  }

  private static String check(String path, String value) {
    if (value == null || !NAME.matcher(value).matches()) {
      throw new ConfigurationException(
          path,
          "must be letters, digits, '-' or single '_' between them (an SQS queue name holds"
              + " no '.', and '__' separates destination and group), was '"
              + value
              + "'");
    }
    return value;
  }

  static final class Mutable {
    URI endpoint;
    String region;
    String namePrefix = "";
    boolean fifo;
    boolean createQueues = true;
    Duration visibilityTimeout = Duration.ofSeconds(30);
    Duration receiveWait = Duration.ofSeconds(20);
    int receivesInFlight = 2;
    int sendsInFlight = 8;
    int maxMessageBytes = 256 * 1024;
    Duration messageRetention = Duration.ofDays(1);
    Duration bindingRefresh = Duration.ofSeconds(5);
    Duration requestTimeout = Duration.ofSeconds(30);

    SqsSettings freeze() {
      if (namePrefix == null || !namePrefix.matches("[A-Za-z0-9_-]{0,40}")) {
        throw new ConfigurationException(
            "sqs.namePrefix",
            "must be up to 40 letters, digits, '_' or '-', was '" + namePrefix + "'");
      }
      between("sqs.visibilityTimeout", visibilityTimeout, Duration.ofSeconds(1), MAX_VISIBILITY);
      between("sqs.receiveWait", receiveWait, Duration.ZERO, Duration.ofSeconds(20));
      range("sqs.receivesInFlight", receivesInFlight, 1, 64);
      range("sqs.sendsInFlight", sendsInFlight, 1, 256);
      range("sqs.maxMessageBytes", maxMessageBytes, 1024, 1024 * 1024);
      between("sqs.messageRetention", messageRetention, Duration.ofMinutes(1), Duration.ofDays(14));
      between("sqs.bindingRefresh", bindingRefresh, Duration.ZERO, Duration.ofHours(1));
      between("sqs.requestTimeout", requestTimeout, Duration.ofMillis(100), Duration.ofMinutes(5));
      return new SqsSettings(
          endpoint,
          region,
          namePrefix,
          fifo,
          createQueues,
          visibilityTimeout,
          receiveWait,
          receivesInFlight,
          sendsInFlight,
          maxMessageBytes,
          messageRetention,
          bindingRefresh,
          requestTimeout);
    }

    private static void range(String path, int value, int min, int max) {
      if (value < min || value > max) {
        throw new ConfigurationException(
            path, "must be between " + min + " and " + max + ", was " + value);
      }
    }

    private static void between(String path, Duration value, Duration min, Duration max) {
      if (value == null || value.compareTo(min) < 0 || value.compareTo(max) > 0) {
        throw new ConfigurationException(
            path, "must be between " + min + " and " + max + ", was " + value);
      }
    }
  }
}
