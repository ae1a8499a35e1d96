package dev.once;

import java.time.Instant;

/**
 * Dead letters of one consumer, event type and error fingerprint: usually one bug.
 *
 * @param errorClass one error class of the group (the fingerprint hashes it, so all share it)
 * @param sampleMessage one of the group's (scrubbed) error messages
 */
public record DeadLetterGroup(
    String consumerId,
    String type,
    String fingerprint,
    String errorClass,
    long count,
    Instant firstDeadAt,
    Instant lastDeadAt,
    String sampleMessage) {

  /** The filter that selects this group's dead letters of {@code status}. */
  public DeadLetterFilter filter(String status, int limit) {
    return new DeadLetterFilter(consumerId, null, type, fingerprint, null, null, status, limit);
  }
}
