package dev.once.kafka;

import dev.once.ConfigurationException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What a {@link KafkaTransport} runs with; built by {@link KafkaTransport.Builder}.
 *
 * @param bootstrapServers {@code host:port[,…]}
 * @param namePrefix put before topic and group names
 * @param partitions partitions of created topics
 * @param replicationFactor of created topics, -1 for the broker's default
 * @param topicRetention {@code retention.ms} of created topics
 * @param deliveryTimeout the producer's {@code delivery.timeout.ms}
 * @param maxInFlight polled, unacknowledged records per group consumer before partitions pause
 * @param revokeTimeout how long a revoked partition waits for its in-flight records
 * @param maxNackDelay longest hold of a nacked record
 * @param commitInterval how often acknowledged offsets are committed
 * @param sessionTimeout the consumers' {@code session.timeout.ms}
 * @param leaveAfterIdle how long a group consumer with no open receiver keeps its partitions
 * @param extra other client properties
 */
public record KafkaSettings(
    String bootstrapServers,
    String namePrefix,
    int partitions,
    short replicationFactor,
    Duration topicRetention,
    Duration deliveryTimeout,
    int maxInFlight,
    Duration revokeTimeout,
    Duration maxNackDelay,
    Duration commitInterval,
    Duration sessionTimeout,
    Duration leaveAfterIdle,
    Map<String, String> extra) {

  public KafkaSettings {
    extra = Map.copyOf(extra);
  }

  /** The topic of a destination. */
  public String topic(String destination) {
    return namePrefix + check("kafka.destination", destination);
  }

  /** The consumer group id of (destination, group): one consumer id may read several topics. */
  public String groupId(String destination, String group) {
    return namePrefix + check("kafka.destination", destination) + "." + check("kafka.group", group);
  }

  /** The destination of a topic of this transport. */
  public String destination(String topic) {
    return topic.substring(namePrefix.length());
  }

  /** A destination's or group's name; compiled once (a relay checks one per message). */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,200}");

  private static String check(String path, String value) {
    if (value == null || !NAME.matcher(value).matches()) {
      throw new ConfigurationException(
          path, "must be 1 to 200 letters, digits, '.', '_' or '-', was '" + value + "'");
    }
    return value;
  }

  static final class Mutable {
    String bootstrapServers = "127.0.0.1:9092";
    String namePrefix = "";
    int partitions = 6;
    short replicationFactor = -1;
    Duration topicRetention = Duration.ofDays(1);
    Duration deliveryTimeout = Duration.ofSeconds(30);
    int maxInFlight = 1000;
    Duration revokeTimeout = Duration.ofSeconds(10);
    Duration maxNackDelay = Duration.ofSeconds(30);
    Duration commitInterval = Duration.ofMillis(200);
    Duration sessionTimeout = Duration.ofSeconds(45);
    Duration leaveAfterIdle = Duration.ofSeconds(10);
    final Map<String, String> extra = new HashMap<>();

    KafkaSettings freeze() {
      if (bootstrapServers == null || bootstrapServers.isBlank()) {
        throw new ConfigurationException("kafka.bootstrapServers", "must name host:port");
      }
      if (namePrefix == null || !namePrefix.matches("[A-Za-z0-9._-]{0,40}")) {
        throw new ConfigurationException(
            "kafka.namePrefix",
            "must be up to 40 letters, digits, '.', '_' or '-', was '" + namePrefix + "'");
      }
      range("kafka.partitions", partitions, 1, 10_000);
      if (replicationFactor != -1 && replicationFactor < 1) {
        throw new ConfigurationException(
            "kafka.replicationFactor",
            "must be -1 (broker default) or ≥ 1, was " + replicationFactor);
      }
      positive("kafka.topicRetention", topicRetention);
      positive("kafka.deliveryTimeout", deliveryTimeout);
      if (deliveryTimeout.compareTo(Duration.ofSeconds(2)) < 0) {
        throw new ConfigurationException(
            "kafka.deliveryTimeout",
            "must be at least 2 s (request timeout + linger fit inside it), was "
                + deliveryTimeout);
      }
      range("kafka.maxInFlight", maxInFlight, 1, 1_000_000);
      positive("kafka.revokeTimeout", revokeTimeout);
      positive("kafka.maxNackDelay", maxNackDelay);
      positive("kafka.commitInterval", commitInterval);
      positive("kafka.sessionTimeout", sessionTimeout);
      positive("kafka.leaveAfterIdle", leaveAfterIdle);
      return new KafkaSettings(
          bootstrapServers,
          namePrefix,
          partitions,
          replicationFactor,
          topicRetention,
          deliveryTimeout,
          maxInFlight,
          revokeTimeout,
          maxNackDelay,
          commitInterval,
          sessionTimeout,
          leaveAfterIdle,
          extra);
    }

    private static void range(String path, int value, int min, int max) {
      if (value < min || value > max) {
        throw new ConfigurationException(
            path, "must be between " + min + " and " + max + ", was " + value);
      }
    }

    private static void positive(String path, Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new ConfigurationException(path, "must be a positive duration, was " + value);
      }
    }
  }
}
