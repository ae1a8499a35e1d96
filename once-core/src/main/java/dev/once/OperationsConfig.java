package dev.once;

import java.time.Duration;

/**
 * The validated settings of one provider's {@link Operations}. Built by {@link OperationsBuilder}.
 *
 * @param provider the provider's name, stored on each operation
 * @param idempotent whether the provider deduplicates requests by idempotency key
 * @param retention how long the provider keeps a key (Stripe: 24 h); null without idempotency.
 *     After it, a retry is never blind: it goes through reconciliation.
 * @param call the remote call
 * @param lookup asks the provider about an uncertain operation; {@link ProviderLookup#NONE} if none
 * @param policy what to do when the provider cannot tell
 * @param lease how long a caller holds an operation; must exceed the call's own timeout
 * @param maxWait how long {@link Operations#call} waits for another caller's outcome
 * @param retryDelay first pause before an UNKNOWN operation is reconciled; doubles per attempt
 * @param maxRetryDelay the cap of that pause
 * @param reconcileInterval how often a started reconciler looks for due operations
 * @param reconcileBatchSize how many due operations a reconciler takes per run
 */
public record OperationsConfig(
    String provider,
    boolean idempotent,
    Duration retention,
    OperationCall call,
    ProviderLookup lookup,
    ReconcilePolicy policy,
    Duration lease,
    Duration maxWait,
    Duration retryDelay,
    Duration maxRetryDelay,
    Duration reconcileInterval,
    int reconcileBatchSize) {}
