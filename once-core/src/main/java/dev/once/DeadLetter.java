package dev.once;

import java.time.Instant;

/**
 * An event a consumer (or the relay, consumer id {@code (relay)}) gave up on. The event keeps its
 * id and payload so it can be replayed; {@link #toString()} never shows the payload.
 *
 * @param errorMessage the handler's exception message (or the broker's reason), truncated to 500
 *     characters and scrubbed of the payload's values by {@link Redaction#scrub}; it is the
 *     handler's own text otherwise
 * @param finalAttemptCrashed the attempt that used up the last one ended without an outcome (the
 *     process died or hung while handling it); the error is then the last real one recorded before
 *     it, or {@code dev.once.AttemptsExhausted} with fingerprint {@code exhausted} if every attempt
 *     crashed
 * @param status open ({@link DeadLetterStatus#DEAD}), replayed or discarded
 */
public record DeadLetter(
    long id,
    String consumerId,
    Event event,
    int attempts,
    Instant firstFailedAt,
    Instant lastFailedAt,
    String errorClass,
    String errorFingerprint,
    String errorMessage,
    boolean finalAttemptCrashed,
    DeadLetterStatus status,
    Instant deadAt,
    Instant resolvedAt) {

  /** The consumer id of the relay's dead letters. */
  public static final String RELAY = "(relay)";

  public boolean isRelay() {
    return RELAY.equals(consumerId);
  }

  public boolean isOpen() {
    return status == DeadLetterStatus.DEAD;
  }
}
