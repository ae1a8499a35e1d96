package dev.once;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How often a consumer tries an event before it dead-letters it, and how long it waits between
 * tries. Build one with {@link #builder()}; {@link #DEFAULT} is 10 attempts, 200 ms doubling to 30
 * s, half jitter.
 *
 * <p>The attempt count is durable: it is the transport's delivery count where the transport keeps
 * one (the table queue, RabbitMQ quorum queues) and the failures recorded in {@code once_attempt}
 * otherwise, whichever is higher. A delivery that kills or hangs the process therefore counts too.
 *
 * @param maxAttempts attempts before the event is dead-lettered (1 = no retry)
 * @param initialBackoff delay before the second attempt
 * @param maxBackoff cap of the doubling delay
 * @param jitter share of each delay that is random, 0 to 1 (0.5: a delay d becomes d/2..d)
 * @param nonRetryable exception types (and their subclasses) that dead-letter at the first failure
 */
public record RetryPolicy(
    int maxAttempts,
    Duration initialBackoff,
    Duration maxBackoff,
    double jitter,
    Set<Class<? extends Throwable>> nonRetryable) {

  public static final RetryPolicy DEFAULT = builder().build();

  public RetryPolicy {
    nonRetryable = Set.copyOf(nonRetryable);
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The delay after failed attempt number {@code attempt} (1-based): doubling, capped, jittered.
   */
  public Duration backoff(int attempt) {
    long base = initialBackoff.toMillis();
    long exp = base << Math.min(20, Math.max(0, attempt - 1));
    long delay = Math.min(maxBackoff.toMillis(), exp);
    long random = (long) (delay * jitter);
    return Duration.ofMillis(delay - random + ThreadLocalRandom.current().nextLong(random + 1));
  }

  /** Whether {@code error} dead-letters at once, whatever the attempt. */
  public boolean isNonRetryable(Throwable error) {
    for (Class<? extends Throwable> type : nonRetryable) {
      if (type.isInstance(error)) {
        return true;
      }
    }
    return false;
  }

  /** Settings of a {@link RetryPolicy}; {@link #build()} validates them. */
  public static final class Builder {
    private int maxAttempts = 10;
    private Duration initialBackoff = Duration.ofMillis(200);
    private Duration maxBackoff = Duration.ofSeconds(30);
    private double jitter = 0.5;
    private final java.util.LinkedHashSet<Class<? extends Throwable>> nonRetryable =
        new java.util.LinkedHashSet<>();

    private Builder() {}

    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
      return this;
    }

    public Builder backoff(Duration initial, Duration max) {
      this.initialBackoff = initial;
      this.maxBackoff = max;
      return this;
    }

    public Builder jitter(double jitter) {
      this.jitter = jitter;
      return this;
    }

    /** Failures of these types are not retried: the event is dead-lettered at once. */
    @SafeVarargs
    public final Builder nonRetryable(Class<? extends Throwable>... types) {
      nonRetryable.addAll(List.of(types));
      return this;
    }

    public RetryPolicy build() {
      Validate.range("retry.maxAttempts", maxAttempts, 1, 1000);
      Validate.positive("retry.initialBackoff", initialBackoff);
      Validate.positive("retry.maxBackoff", maxBackoff);
      if (maxBackoff.compareTo(initialBackoff) < 0) {
        throw new ConfigurationException(
            "retry.maxBackoff",
            "must be >= retry.initialBackoff (" + initialBackoff + "), was " + maxBackoff);
      }
      if (!(jitter >= 0 && jitter <= 1)) {
        throw new ConfigurationException("retry.jitter", "must be between 0 and 1, was " + jitter);
      }
      return new RetryPolicy(maxAttempts, initialBackoff, maxBackoff, jitter, nonRetryable);
    }
  }
}
