package dev.once;

import java.time.Duration;
import java.util.function.Function;

/** Describes a consumer; {@link #build()} validates it. Obtain one from {@link Once#consumer}. */
public final class ConsumerBuilder {
  private final String consumerId;
  private final Function<ConsumerConfig, Consumer> factory;
  private String destination;
  private Handler handler;
  private int workers = 2;
  private int batchSize = 32;
  private Duration pollTimeout = Duration.ofSeconds(1);
  private RetryPolicy retry = RetryPolicy.DEFAULT;

  /** For {@link Once} implementations. */
  public ConsumerBuilder(String consumerId, Function<ConsumerConfig, Consumer> factory) {
    this.consumerId = consumerId;
    this.factory = factory;
  }

  /** Handle every event published to {@code destination} with {@code handler}. */
  public ConsumerBuilder subscribe(String destination, Handler handler) {
    this.destination = destination;
    this.handler = handler;
    return this;
  }

  public ConsumerBuilder workers(int workers) {
    this.workers = workers;
    return this;
  }

  public ConsumerBuilder batchSize(int batchSize) {
    this.batchSize = batchSize;
    return this;
  }

  public ConsumerBuilder pollTimeout(Duration pollTimeout) {
    this.pollTimeout = pollTimeout;
    return this;
  }

  /** Retries, backoff and dead-lettering of this consumer. Default {@link RetryPolicy#DEFAULT}. */
  public ConsumerBuilder retry(RetryPolicy retry) {
    this.retry = retry;
    return this;
  }

  /** Shorthand for a {@link #retry} policy with this backoff and the other settings as they are. */
  public ConsumerBuilder retryDelay(Duration retryDelay, Duration maxRetryDelay) {
    Validate.notNull("consumer.retry", retry);
    this.retry =
        new RetryPolicy(
            retry.maxAttempts(), retryDelay, maxRetryDelay, retry.jitter(), retry.nonRetryable());
    return this;
  }

  /** Validates, declares the subscription at the transport, and returns the consumer (stopped). */
  public Consumer build() {
    Validate.name("consumer.id", consumerId);
    Validate.name("consumer.destination", destination);
    Validate.notNull("consumer.handler", handler);
    Validate.range("consumer.workers", workers, 1, 256);
    // PostgreSQL slows down past 64 subtransactions in one transaction; a savepoint each.
    Validate.range("consumer.batchSize", batchSize, 1, 64);
    Validate.positive("consumer.pollTimeout", pollTimeout);
    Validate.notNull("consumer.retry", retry);
    return factory.apply(
        new ConsumerConfig(
            consumerId, destination, handler, workers, batchSize, pollTimeout, retry));
  }
}
