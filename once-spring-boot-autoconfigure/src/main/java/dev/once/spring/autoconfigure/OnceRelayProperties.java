package dev.once.spring.autoconfigure;

import java.time.Duration;

/** The relay's settings, {@code once.relay.*}. */
public class OnceRelayProperties {
  /** Whether this application runs a relay (publishes the outbox). */
  private boolean enabled = true;

  /** Outbox rows claimed per round. */
  private int batchSize = 200;

  /** How long an idle relay waits for a wake-up before it looks again. */
  private Duration idleWait = Duration.ofSeconds(1);

  /** How long the relay waits for the broker's confirmations. */
  private Duration confirmTimeout = Duration.ofSeconds(30);

  /** Publish attempts of one outbox row before it is parked as a dead letter. */
  private int maxAttempts = 10;

  /** Backoff after a refused publish; it doubles up to max-retry-delay. */
  private Duration retryDelay = Duration.ofSeconds(5);

  /** The longest backoff between publish attempts. */
  private Duration maxRetryDelay = Duration.ofMinutes(5);

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

  public int getBatchSize() {
    return batchSize;
  }

  public void setBatchSize(int batchSize) {
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

  public int getMaxAttempts() {
    return maxAttempts;
  }

  public void setMaxAttempts(int maxAttempts) {
    this.maxAttempts = maxAttempts;
  }
}
