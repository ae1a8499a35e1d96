package dev.once.internal;

import dev.once.Redaction;
import dev.once.jdbc.FailedAttempt;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * What Once keeps of a handler's failure: the exception class, a fingerprint that groups failures
 * with the same cause (class and top frames, not the message, which carries ids), and the handler's
 * message, truncated and scrubbed of the payload's values.
 *
 * @param finalAttemptCrashed the attempt that used up the last one ended without a recorded outcome
 *     (the process died or hung); the rest is then the last real failure before it, if any
 */
public record Failure(
    String errorClass, String fingerprint, String message, boolean finalAttemptCrashed) {
  static final int MAX_MESSAGE = 500;
  private static final int FRAMES = 5;

  public static Failure of(Throwable error, byte[] payload) {
    Throwable root = rootCause(error);
    StringBuilder shape = new StringBuilder(root.getClass().getName());
    StackTraceElement[] frames = root.getStackTrace();
    for (int i = 0; i < Math.min(FRAMES, frames.length); i++) {
      shape
          .append('|')
          .append(frames[i].getClassName())
          .append('.')
          .append(frames[i].getMethodName());
    }
    String fingerprint =
        Redaction.sha256(shape.toString().getBytes(StandardCharsets.UTF_8)).substring(0, 12);
    return new Failure(root.getClass().getName(), fingerprint, message(root, payload), false);
  }

  /**
   * The deliveries came back more often than allowed and the last one ended without an outcome (a
   * crash): the last real failure recorded before, so that it groups with its poison siblings, or
   * {@code AttemptsExhausted} when every attempt crashed.
   */
  public static Failure exhausted(int deliveries, Failure lastRecorded) {
    if (lastRecorded != null) {
      return new Failure(
          lastRecorded.errorClass, lastRecorded.fingerprint, lastRecorded.message, true);
    }
    return new Failure(
        "dev.once.AttemptsExhausted",
        "exhausted",
        "delivered "
            + deliveries
            + " times without a recorded outcome: the process died or hung while handling it",
        true);
  }

  /**
   * A message that cannot be decoded into an event ({@code reason} names the field, never its
   * value): retrying cannot fix it.
   */
  public static Failure malformed(String reason) {
    String shape = reason.replaceAll("[0-9]+", "#");
    String fingerprint = Redaction.sha256(shape.getBytes(StandardCharsets.UTF_8)).substring(0, 12);
    return new Failure("dev.once.MalformedMessage", fingerprint, reason, false);
  }

  /**
   * The broker dead-lettered the message on its own ({@code reason} in its words: rejected,
   * delivery_limit, ...), outside Once; names the queue and the reason, nothing of the message.
   */
  static Failure brokerDeadLettered(
      String transport, String queue, String reason, Instant deadAt, long deaths) {
    String why = reason == null ? "no reason given" : reason;
    String fingerprint =
        Redaction.sha256(("broker|" + why).getBytes(StandardCharsets.UTF_8)).substring(0, 12);
    String message =
        transport
            + " dead-lettered it on its own from queue '"
            + (queue == null ? "?" : queue)
            + "' ("
            + why
            + (deadAt == null ? "" : ", at " + deadAt)
            + (deaths > 1 ? ", " + deaths + " times" : "")
            + "); moved into Once's dead letters";
    return new Failure("dev.once.BrokerDeadLettered", fingerprint, message, false);
  }

  /** The broker refused an outbox row (too large, unroutable, ...): its reason, no payload. */
  public static Failure refused(String reason) {
    String shape = reason == null ? "" : reason.replaceAll("[0-9]+", "#");
    String fingerprint = Redaction.sha256(shape.getBytes(StandardCharsets.UTF_8)).substring(0, 12);
    String text =
        reason == null || reason.length() <= MAX_MESSAGE
            ? reason
            : reason.substring(0, MAX_MESSAGE);
    return new Failure("dev.once.PublishRefused", fingerprint, text, false);
  }

  /** This failure as the attempt row of (consumer, event). */
  public FailedAttempt attempt(
      String consumerId,
      String eventId,
      int attempts,
      Instant firstFailedAt,
      Instant lastFailedAt) {
    return new FailedAttempt(
        consumerId,
        eventId,
        attempts,
        firstFailedAt,
        lastFailedAt,
        errorClass,
        fingerprint,
        message,
        finalAttemptCrashed);
  }

  private static String message(Throwable root, byte[] payload) {
    String text = root.getMessage();
    if (text == null) {
      return null;
    }
    String scrubbed = Redaction.scrub(text, payload);
    return scrubbed.length() <= MAX_MESSAGE ? scrubbed : scrubbed.substring(0, MAX_MESSAGE) + "…";
  }

  /**
   * {@code e} for a log line where no payload is at hand to scrub its message with: the class and
   * where it was thrown ({@code java.lang.AssertionError at a.B.c(B.java:12)}), never the message,
   * which may quote a payload.
   */
  public static String withoutMessage(Throwable e) {
    StackTraceElement[] frames = e.getStackTrace();
    return e.getClass().getName()
        + (frames.length == 0 ? "" : " at " + frames[0])
        + " (message not logged: it may quote a payload)";
  }

  private static Throwable rootCause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t;
  }
}
