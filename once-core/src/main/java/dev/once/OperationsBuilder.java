package dev.once;

import java.time.Duration;
import java.util.function.Function;

/**
 * Describes one provider's operations; {@link #build()} validates. From {@link Once#operations}.
 */
public final class OperationsBuilder {
  private final String provider;
  private final Function<OperationsConfig, Operations> factory;
  private Boolean idempotent;
  private Duration retention;
  private OperationCall call;
  private ProviderLookup lookup = ProviderLookup.NONE;
  private ReconcilePolicy policy;
  private Duration lease = Duration.ofSeconds(60);
  private Duration maxWait = Duration.ofSeconds(10);
  private Duration retryDelay = Duration.ofSeconds(1);
  private Duration maxRetryDelay = Duration.ofMinutes(5);
  private Duration reconcileInterval = Duration.ofSeconds(1);
  private int reconcileBatchSize = 1;

  /** For {@link Once} implementations. */
  public OperationsBuilder(String provider, Function<OperationsConfig, Operations> factory) {
    this.provider = provider;
    this.factory = factory;
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

  public OperationsBuilder retryDelay(Duration retryDelay, Duration maxRetryDelay) {
    this.retryDelay = retryDelay;
    this.maxRetryDelay = maxRetryDelay;
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

  public Operations build() {
    Validate.name("operations.provider", provider);
    if (idempotent == null) {
      throw new ConfigurationException(
          "operations.idempotency",
          "must be declared: idempotencyWindow(retention) for a provider that deduplicates by"
              + " key, or withoutIdempotency()");
    }
    if (idempotent) {
      Validate.positive("operations.idempotencyWindow", retention);
    }
    Validate.notNull("operations.call", call);
    Validate.notNull("operations.lookup", lookup);
    Validate.notNull("operations.whenUncertain", policy);
    Validate.positive("operations.lease", lease);
    Validate.positive("operations.maxWait", maxWait);
    Validate.positive("operations.retryDelay", retryDelay);
    Validate.positive("operations.maxRetryDelay", maxRetryDelay);
    Validate.positive("operations.reconcileInterval", reconcileInterval);
    Validate.range("operations.reconcileBatchSize", reconcileBatchSize, 1, 10_000);
    return factory.apply(
        new OperationsConfig(
            provider,
            idempotent,
            retention,
            call,
            lookup,
            policy,
            lease,
            maxWait,
            retryDelay,
            maxRetryDelay,
            reconcileInterval,
            reconcileBatchSize));
  }
}
