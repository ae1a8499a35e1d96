package dev.once;

import dev.once.spi.Validate;
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
 * @param backoff the pause before an UNKNOWN operation is reconciled again, per attempt
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
    Backoff backoff,
    Duration reconcileInterval,
    int reconcileBatchSize) {

  public OperationsConfig {
    Validate.name("operations.provider", provider);
    if (idempotent) {
      Validate.positive("operations.idempotencyWindow", retention);
    } else if (retention != null) {
      throw new ConfigurationException(
          "operations.idempotencyWindow",
          "must be empty for a provider without idempotency, was " + retention);
    }
    Validate.notNull("operations.call", call);
    Validate.notNull("operations.lookup", lookup);
    Validate.notNull("operations.whenUncertain", policy);
    Validate.positive("operations.lease", lease);
    Validate.positive("operations.maxWait", maxWait);
    Validate.notNull("operations.backoff", backoff);
    Validate.positive("operations.reconcileInterval", reconcileInterval);
    Validate.range("operations.reconcileBatchSize", reconcileBatchSize, 1, 10_000);
  }
}
