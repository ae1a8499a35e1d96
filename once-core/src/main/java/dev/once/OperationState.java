package dev.once;

/**
 * Where an operation stands, as stored in {@code once_operation}. Every state is durable: a process
 * that crashes and comes back, or another process, reads the same state.
 *
 * <pre>
 *   PENDING ──claim──▶ IN_FLIGHT ──answer──▶ SUCCEEDED | FAILED
 *      ▲                   │ │
 *      └──── not sent ─────┘ └── no answer / lease ran out ──▶ UNKNOWN
 *   UNKNOWN ──claim──▶ reconcile ──▶ SUCCEEDED (provider found it) | IN_FLIGHT (call again)
 *                                    | ABANDONED (policy PREFER_MISSED)
 * </pre>
 */
public enum OperationState {
  /** The key is stored; no call has (possibly) reached the provider yet. */
  PENDING,
  /** A caller holds the lease and is calling the provider with the key. */
  IN_FLIGHT,
  /** The provider answered with success; the result is stored and returned to later callers. */
  SUCCEEDED,
  /** The provider answered with a definitive refusal; stored, never called again. */
  FAILED,
  /** A call may have reached the provider but no answer came back; reconciliation decides. */
  UNKNOWN,
  /**
   * Reconciliation could not learn the outcome and the policy {@link ReconcilePolicy#PREFER_MISSED}
   * chose not to call again. The action may or may not have happened; an operator decides.
   */
  ABANDONED;

  /** Whether the state is final: later callers get the stored outcome without a call. */
  public boolean isFinal() {
    return this == SUCCEEDED || this == FAILED || this == ABANDONED;
  }
}
