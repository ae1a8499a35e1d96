package dev.once.spring.autoconfigure;

import dev.once.ConsumerBuilder;
import dev.once.RetryPolicy;
import java.time.Duration;

/**
 * The settings of one consumer, {@code once.consumers.<id>.*}. A setting left unset stays unset
 * (null) and the consumer gets core's default ({@link ConsumerBuilder}, {@link
 * RetryPolicy#DEFAULT}): no default is copied here.
 */
public class OnceConsumerProperties {
  /** Whether this consumer runs in this application. */
  private boolean enabled = true;

  /** Worker threads, each polling and committing its own batches. Unset: core's default. */
  private Integer workers;

  /** Deliveries per batch transaction (1 to 64). Unset: core's default. */
  private Integer batchSize;

  /**
   * How long an idle worker's poll waits for deliveries before it polls again. Unset: core's
   * default.
   */
  private Duration idleWait;

  /** Attempts of one event before it is dead-lettered. Unset: core's default. */
  private Integer maxAttempts;

  /** Backoff before the second attempt; it doubles up to max-retry-delay. Unset: core's default. */
  private Duration retryDelay;

  /** The longest backoff between attempts. Unset: core's default. */
  private Duration maxRetryDelay;

  /**
   * Whether a key's events take effect one at a time in publish order, a failing one parking only
   * its key ({@link ConsumerBuilder#ordered}; the table queue). Unset: unordered.
   */
  private Boolean ordered;

  /** Sets on {@code consumer} what is set here; the rest keeps core's defaults. */
  public ConsumerBuilder applyTo(ConsumerBuilder consumer) {
    if (workers != null) {
      consumer.workers(workers);
    }
    if (batchSize != null) {
      consumer.batchSize(batchSize);
    }
    if (idleWait != null) {
      consumer.idleWait(idleWait);
    }
    if (Boolean.TRUE.equals(ordered)) {
      consumer.ordered();
    }
    return consumer.retry(retry());
  }

  /** Core's {@link RetryPolicy#DEFAULT} with what is set here. */
  RetryPolicy retry() {
    return RetrySettings.over(RetryPolicy.DEFAULT, maxAttempts, retryDelay, maxRetryDelay);
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public Integer getWorkers() {
    return workers;
  }

  public void setWorkers(Integer workers) {
    this.workers = workers;
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

  public Integer getMaxAttempts() {
    return maxAttempts;
  }

  public void setMaxAttempts(Integer maxAttempts) {
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

  public Boolean getOrdered() {
    return ordered;
  }

  public void setOrdered(Boolean ordered) {
    this.ordered = ordered;
  }
}
