package dev.once.jdbc;

import java.time.Instant;

/**
 * One failed attempt of a consumer at an event, or the failures that made it a dead letter.
 *
 * @param consumerId the consumer
 * @param eventId the event
 * @param attempts the attempt number that failed (the count so far)
 * @param firstFailedAt when the first attempt failed (kept if one is stored)
 * @param lastFailedAt when this attempt failed
 * @param errorClass the exception's class, or a reason such as {@code AttemptsExhausted}
 * @param fingerprint groups the same failure across events
 * @param message the error message, redacted and shortened
 * @param finalAttemptCrashed for a dead letter: its last attempt ended in a crash, the error is the
 *     last one recorded before (attempt rows ignore it)
 */
public record FailedAttempt(
    String consumerId,
    String eventId,
    int attempts,
    Instant firstFailedAt,
    Instant lastFailedAt,
    String errorClass,
    String fingerprint,
    String message,
    boolean finalAttemptCrashed) {}
