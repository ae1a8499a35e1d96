package dev.once;

import java.time.Duration;

/**
 * Describes one provider's operations; {@link #build()} validates. From {@link Once#operations}.
 */
public final class OperationsBuilder {
  private final String provider;
  private final Once once;
  private Boolean idempotent;
  private Duration retention;
  private OperationCall call;
  private ProviderLookup lookup = ProviderLookup.NONE;
  private ReconcilePolicy policy;
  private Duration lease = Duration.ofSeconds(60);
  private Duration maxWait = Duration.ofSeconds(10);
  private Backoff backoff = Backoff.of(Duration.ofSeconds(1), Duration.ofMinutes(5));
  private Duration reconcileInterval = Duration.ofSeconds(1);
  private int reconcileBatchSize = 1;

  OperationsBuilder(String provider, Once once) {
    this.provider = provider;
    this.once = once;
  }

  /** The provider deduplicates by idempotency key and keeps a key for {@code retention}. */
  public OperationsBuilder idempotencyWindow(Duration retention) {
    this.idempotent = true;
    this.retention = retention;
    return this;
  }

  /**
   * The provider cannot deduplicate (e.g. an SMTP relay). The key is still stored and sent, but a
   * retry after a lost answer can repeat the action: there is no exactly-once with such a provider.
   */
  public OperationsBuilder withoutIdempotency() {
    this.idempotent = false;
    this.retention = null;
    return this;
  }

  public OperationsBuilder call(OperationCall call) {
    this.call = call;
    return this;
  }

  public OperationsBuilder lookup(ProviderLookup lookup) {
    this.lookup = lookup;
    return this;
  }

  /** Required: the risk to take when the provider cannot tell whether it acted. */
  public OperationsBuilder whenUncertain(ReconcilePolicy policy) {
    this.policy = policy;
    return this;
  }

  public OperationsBuilder lease(Duration lease) {
    this.lease = lease;
    return this;
  }

  public OperationsBuilder maxWait(Duration maxWait) {
    this.maxWait = maxWait;
    return this;
  }

  /**
   * The wait before an UNKNOWN operation is reconciled again, per attempt. Default 1 s doubling to
   * 5 min, half jitter.
   */
  public OperationsBuilder backoff(Backoff backoff) {
    this.backoff = backoff;
    return this;
  }

  public OperationsBuilder reconcileInterval(Duration reconcileInterval) {
    this.reconcileInterval = reconcileInterval;
    return this;
  }

  /**
   * Due operations a reconciler claims in one statement (default 1). More saves claim transactions,
   * but a reconciler that dies leaves every not-yet-called row of its batch IN_FLIGHT until the
   * lease runs out, and then uncertain.
   */
  public OperationsBuilder reconcileBatchSize(int reconcileBatchSize) {
    this.reconcileBatchSize = reconcileBatchSize;
    return this;
  }

  /**
   * Validates and returns the provider's operations.
   *
   * @throws ConfigurationException naming the first bad setting
   */
  public Operations build() {
    if (idempotent == null) {
      throw new ConfigurationException(
          "operations.idempotency",
          "must be declared: idempotencyWindow(retention) for a provider that deduplicates by"
              + " key, or withoutIdempotency()");
    }
    return once.operations(
        new OperationsConfig(
            provider,
            idempotent,
            retention,
            call,
            lookup,
            policy,
            lease,
            maxWait,
            backoff,
            reconcileInterval,
            reconcileBatchSize));
  }
}
