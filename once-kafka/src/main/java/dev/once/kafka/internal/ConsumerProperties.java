package dev.once.kafka.internal;

import dev.once.kafka.KafkaSettings;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** The properties of the Kafka consumer of one (destination, group). */
public final class ConsumerProperties {
  private ConsumerProperties() {}

  /** Manual commits, read_committed, cooperative rebalancing; the user's extra properties last. */
  public static Properties of(KafkaSettings settings, String groupId) {
    Properties p = Clients.common(settings, "once-" + groupId);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    // one poll may bring at most maxInFlight records: the open records stay below twice that
    p.put(
        ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
        String.valueOf(Math.min(500, settings.maxInFlight())));
    p.put(
        ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
        CooperativeStickyAssignor.class.getName());
    p.put(
        ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
        String.valueOf(settings.sessionTimeout().toMillis()));
    p.put(
        ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
        String.valueOf(Math.max(100, settings.sessionTimeout().toMillis() / 5)));
    p.put(
        ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG,
        String.valueOf(Math.max(60_000, settings.revokeTimeout().toMillis() * 4)));
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, "false");
    p.putAll(settings.extra()); // the user's word is the last
    return p;
  }
}
