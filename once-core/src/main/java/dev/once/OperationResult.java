package dev.once;

import java.time.Instant;

/**
 * An operation as stored: its key, its state and what the provider answered. Returned by every call
 * of {@link Operations#call}, whether this caller called the provider or not.
 *
 * @param operationId the caller's stable identity of the action, e.g. {@code charge:order-814}
 * @param provider the name the {@link Operations} was built with
 * @param idempotencyKey the key created before the first call and sent on every attempt
 * @param state where the operation stands
 * @param result the provider's answer (SUCCEEDED: its response; FAILED: its refusal), else null
 * @param error the last error without an answer (timeout, connection reset, 5xx), or null
 * @param resolution how reconciliation decided, when it had to (e.g. the policy applied), or null
 * @param attempts how many times a caller took the operation to work on it
 * @param createdAt when the key was stored
 * @param firstAttemptAt when the first call was started, or null; the provider's key retention
 *     window counts from here
 * @param updatedAt the last change
 */
public record OperationResult(
    String operationId,
    String provider,
    String idempotencyKey,
    OperationState state,
    String result,
    String error,
    String resolution,
    int attempts,
    Instant createdAt,
    Instant firstAttemptAt,
    Instant updatedAt) {

  public boolean succeeded() {
    return state == OperationState.SUCCEEDED;
  }

  /** Still open: PENDING, IN_FLIGHT (another caller is at it) or UNKNOWN. */
  public boolean inProgress() {
    return !state.isFinal();
  }
}
