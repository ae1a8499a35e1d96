package dev.once.spring.autoconfigure;

import dev.once.OnceBuilder;
import dev.once.RetryPolicy;
import java.time.Duration;

/**
 * The relay's settings, {@code once.relay.*}. A setting left unset stays unset (null) and the relay
 * gets core's default ({@link OnceBuilder}, {@link OnceBuilder#DEFAULT_RELAY_RETRY}): no default is
 * copied here.
 */
public class OnceRelayProperties {
  /** Whether this application runs a relay (publishes the outbox). */
  private boolean enabled = true;

  /** Outbox rows claimed per round. Unset: core's default. */
  private Integer batchSize;

  /** How long an idle relay waits for a wake-up before it looks again. Unset: core's default. */
  private Duration idleWait;

  /** How long the relay waits for the broker's confirmations. Unset: core's default. */
  private Duration confirmTimeout;

  /**
   * Publish attempts of one outbox row before it is parked as a dead letter. Unset: core's default.
   */
  private Integer maxAttempts;

  /** Backoff after a refused publish; it doubles up to max-retry-delay. Unset: core's default. */
  private Duration retryDelay;

  /** The longest backoff between publish attempts. Unset: core's default. */
  private Duration maxRetryDelay;

  /** Sets on {@code once} the relay settings set here; the rest keeps core's defaults. */
  public OnceBuilder applyTo(OnceBuilder once) {
    if (batchSize != null) {
      once.relayBatchSize(batchSize);
    }
    if (idleWait != null) {
      once.relayIdleWait(idleWait);
    }
    if (confirmTimeout != null) {
      once.confirmTimeout(confirmTimeout);
    }
    return once.relayRetry(retry());
  }

  /** Core's {@link OnceBuilder#DEFAULT_RELAY_RETRY} with what is set here. */
  RetryPolicy retry() {
    return RetrySettings.over(
        OnceBuilder.DEFAULT_RELAY_RETRY, maxAttempts, retryDelay, maxRetryDelay);
  }

  public Duration getRetryDelay() {
    return retryDelay;
  }

  public void setRetryDelay(Duration retryDelay) {
    this.retryDelay = retryDelay;
  }

  public Duration getMaxRetryDelay() {
    return maxRetryDelay;
  }

  public void setMaxRetryDelay(Duration maxRetryDelay) {
    this.maxRetryDelay = maxRetryDelay;
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public Integer getBatchSize() {
    return batchSize;
  }

  public void setBatchSize(Integer batchSize) {
    this.batchSize = batchSize;
  }

  public Duration getIdleWait() {
    return idleWait;
  }

  public void setIdleWait(Duration idleWait) {
    this.idleWait = idleWait;
  }

  public Duration getConfirmTimeout() {
    return confirmTimeout;
  }

  public void setConfirmTimeout(Duration confirmTimeout) {
    this.confirmTimeout = confirmTimeout;
  }

  public Integer getMaxAttempts() {
    return maxAttempts;
  }

  public void setMaxAttempts(Integer maxAttempts) {
    this.maxAttempts = maxAttempts;
  }
}
