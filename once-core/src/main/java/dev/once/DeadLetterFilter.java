package dev.once;

import java.time.Instant;

/**
 * Which dead letters to list, replay or discard; a null field matches everything.
 *
 * @param from dead-lettered at or after
 * @param to dead-lettered before
 * @param status {@code dead} (open), {@code replayed}, {@code discarded}, or null for all
 * @param limit at most this many, oldest first
 */
public record DeadLetterFilter(
    String consumerId,
    String eventId,
    String type,
    String fingerprint,
    Instant from,
    Instant to,
    String status,
    int limit) {

  /** Every open dead letter, up to 1000. */
  public static DeadLetterFilter open() {
    return new DeadLetterFilter(null, null, null, null, null, null, "dead", 1000);
  }

  public DeadLetterFilter consumer(String consumerId) {
    return new DeadLetterFilter(consumerId, eventId, type, fingerprint, from, to, status, limit);
  }

  public DeadLetterFilter event(String eventId) {
    return new DeadLetterFilter(consumerId, eventId, type, fingerprint, from, to, status, limit);
  }

  /** True when nothing narrows it down but the status. */
  public boolean isUnfiltered() {
    return consumerId == null
        && eventId == null
        && type == null
        && fingerprint == null
        && from == null
        && to == null;
  }
}
