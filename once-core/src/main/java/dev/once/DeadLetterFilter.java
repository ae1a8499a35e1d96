package dev.once;

import java.time.Instant;
import java.util.Collection;
import java.util.Set;

/**
 * Which dead letters to list, replay or discard; a null field matches everything.
 *
 * @param from dead-lettered at or after
 * @param to dead-lettered before
 * @param status {@code dead} (open), {@code replayed}, {@code discarded}, or null for all
 * @param limit at most this many, oldest first
 * @param ids only dead letters with these ids (as {@link DeadLetter#id()} and {@code once
 *     dead-letters list} show them)
 */
public record DeadLetterFilter(
    String consumerId,
    String eventId,
    String type,
    String fingerprint,
    Instant from,
    Instant to,
    String status,
    int limit,
    Set<Long> ids) {

  public DeadLetterFilter {
    ids = ids == null ? null : Set.copyOf(ids);
  }

  /** Any id. */
  public DeadLetterFilter(
      String consumerId,
      String eventId,
      String type,
      String fingerprint,
      Instant from,
      Instant to,
      String status,
      int limit) {
    this(consumerId, eventId, type, fingerprint, from, to, status, limit, null);
  }

  /** Every open dead letter, up to 1000. */
  public static DeadLetterFilter open() {
    return new DeadLetterFilter(null, null, null, null, null, null, "dead", 1000);
  }

  public DeadLetterFilter consumer(String consumerId) {
    return new DeadLetterFilter(
        consumerId, eventId, type, fingerprint, from, to, status, limit, ids);
  }

  public DeadLetterFilter event(String eventId) {
    return new DeadLetterFilter(
        consumerId, eventId, type, fingerprint, from, to, status, limit, ids);
  }

  public DeadLetterFilter fingerprint(String fingerprint) {
    return new DeadLetterFilter(
        consumerId, eventId, type, fingerprint, from, to, status, limit, ids);
  }

  /** Only the dead letters in this status ({@code null}: any). */
  public DeadLetterFilter status(String status) {
    return new DeadLetterFilter(
        consumerId, eventId, type, fingerprint, from, to, status, limit, ids);
  }

  /** At most this many dead letters. */
  public DeadLetterFilter limit(int limit) {
    return new DeadLetterFilter(
        consumerId, eventId, type, fingerprint, from, to, status, limit, ids);
  }

  /** Only the dead letters with these ids. */
  public DeadLetterFilter ids(Collection<Long> ids) {
    return new DeadLetterFilter(
        consumerId, eventId, type, fingerprint, from, to, status, limit, Set.copyOf(ids));
  }

  /** True when nothing narrows it down but the status. */
  public boolean isUnfiltered() {
    return consumerId == null
        && eventId == null
        && type == null
        && fingerprint == null
        && from == null
        && to == null
        && ids == null;
  }
}
