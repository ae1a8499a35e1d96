package dev.once.spring.autoconfigure;

import java.time.Duration;

/** The settings of one consumer, {@code once.consumers.<id>.*}. */
public class OnceConsumerProperties {
  /** Whether this consumer runs in this application. */
  private boolean enabled = true;

  /** Worker threads, each polling and committing its own batches. */
  private int workers = 2;

  /** Deliveries per batch transaction (1 to 64). */
  private int batchSize = 32;

  /** How long an idle worker's poll waits for deliveries before it polls again. */
  private Duration idleWait = Duration.ofSeconds(1);

  /** Attempts of one event before it is dead-lettered. */
  private int maxAttempts = 10;

  /** Backoff before the second attempt; it doubles up to max-retry-delay. */
  private Duration retryDelay = Duration.ofSeconds(1);

  /** The longest backoff between attempts. */
  private Duration maxRetryDelay = Duration.ofMinutes(5);

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public int getWorkers() {
    return workers;
  }

  public void setWorkers(int workers) {
    this.workers = workers;
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

  public int getMaxAttempts() {
    return maxAttempts;
  }

  public void setMaxAttempts(int maxAttempts) {
    this.maxAttempts = maxAttempts;
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
}
