package dev.once.spi;

import dev.once.RetentionPolicy;

/**
 * A capability of a {@link Transport} whose broker can hand a message out again for a known time
 * (Kafka: as long as the topic retains the record).
 */
public interface RetentionCheck {

  /**
   * Refuses (with a {@code ConfigurationException} naming the setting) a retention policy whose
   * markers could be deleted while this broker can still hand out their events again, e.g. a
   * redelivery horizon shorter than a Kafka topic's retention. Called by {@code
   * OnceBuilder.build()}.
   */
  void checkRetention(RetentionPolicy retention);
}
