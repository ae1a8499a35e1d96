package dev.once;

import java.util.Optional;

/**
 * The operations of one remote provider (a payment provider, an e-mail relay): actions outside the
 * database, each with an idempotency key that is stored and committed before the first call and
 * sent on every attempt. Obtain one from {@link Once#operations}.
 *
 * <p>What is guaranteed depends on the provider. With a provider that deduplicates by key within a
 * retention window, a retry inside the window cannot repeat the action, so the action happens at
 * most once and — with the reconciler running — at least once. With a provider that cannot
 * deduplicate ({@link OperationsBuilder#withoutIdempotency()}), there is no exactly-once: a call
 * whose answer was lost is reconciled through the lookup, and when the provider cannot tell, the
 * {@link ReconcilePolicy} picks the risk (a missed action or a duplicate) and records it.
 */
public interface Operations {

  /** The provider's name, as stored on each operation. */
  String provider();

  /**
   * Performs the operation unless its outcome is already stored. The first call stores a new key
   * and commits it before calling; every later call of the same {@code operationId} reuses that
   * key, or returns the stored result without a call. If another caller holds the operation, waits
   * up to {@link OperationsConfig#maxWait()} for its outcome, then returns it still IN_FLIGHT.
   *
   * @param operationId the stable identity of the action, e.g. {@code "charge:" + orderId}
   * @param request the canonical request text (e.g. JSON); its SHA-256 is stored as fingerprint
   * @throws OperationConflictException if {@code operationId} is stored with another request
   * @throws InvalidOperationException if the id is empty or too long, or the request too large
   */
  OperationResult call(String operationId, String request);

  /**
   * Records the operation as PENDING inside the caller's transaction — e.g. a consumer's handler,
   * with an id derived from the event id — without calling anything. It is performed after that
   * transaction commits, by this provider's reconciler ({@link #newReconciler()}). Returns false if
   * the operation was already recorded (same request).
   *
   * @throws OperationConflictException if {@code operationId} is stored with another request
   */
  boolean request(Tx tx, String operationId, String request);

  /** The stored operation, if any. */
  Optional<OperationResult> find(String operationId);

  /**
   * The engine that performs recorded (PENDING) operations and resolves UNKNOWN ones and those
   * whose caller died (lease ran out). A new one per call, not started; run one in at least one
   * process.
   */
  Reconciler newReconciler();

  OperationsConfig config();
}
