package dev.once;

import dev.once.spi.Validate;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * How often something is tried before it is given up as a dead letter, and how long to wait between
 * tries. Build one with {@link #builder()}; {@link #DEFAULT} is 10 attempts, 200 ms doubling to 30
 * s, half jitter.
 *
 * <p>For a consumer, the attempt count is durable: the failures recorded in {@code once_attempt} —
 * a handler that threw, an {@link Error} thrown while the delivery ran, a crash of the process
 * while it ran alone (counted before it ran). A delivery that kills or hangs the process therefore
 * counts too, once bisection has it running alone; the innocents of the batches it crashed are not
 * charged. The transport's delivery count is not an attempt (docs/OPERATING.md, "Retries").
 *
 * @param maxAttempts attempts before the event is dead-lettered (1 = no retry), 1 to 1000
 * @param backoff the wait between attempts
 * @param nonRetryable exception types (and their subclasses) that dead-letter at the first failure
 */
public record RetryPolicy(
    int maxAttempts, Backoff backoff, Set<Class<? extends Throwable>> nonRetryable) {

  public static final RetryPolicy DEFAULT = builder().build();

  public RetryPolicy {
    Validate.range("retry.maxAttempts", maxAttempts, 1, 1000);
    Validate.notNull("retry.backoff", backoff);
    nonRetryable = nonRetryable == null ? Set.of() : Set.copyOf(nonRetryable);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The delay after failed attempt number {@code attempt} (1-based). */
  public Duration delay(int attempt) {
    return backoff.delay(attempt);
  }

  /** Whether {@code error} dead-letters at once, whatever the attempt. */
  public boolean isNonRetryable(Throwable error) {
    if (error instanceof PayloadDecodingException) {
      return true; // the same bytes never decode on a later attempt
    }
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
    private Backoff backoff = Backoff.of(Duration.ofMillis(200), Duration.ofSeconds(30));
    private final Set<Class<? extends Throwable>> nonRetryable = new LinkedHashSet<>();

    private Builder() {}

    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
      return this;
    }

    public Builder backoff(Backoff backoff) {
      this.backoff = backoff;
      return this;
    }

    /** Shorthand for {@code backoff(Backoff.of(initial, max))}: doubling, half jittered. */
    public Builder backoff(Duration initial, Duration max) {
      return backoff(Backoff.of(initial, max));
    }

    /** Failures of these types are not retried: the event is dead-lettered at once. */
    @SafeVarargs
    public final Builder nonRetryable(Class<? extends Throwable>... types) {
      nonRetryable.addAll(List.of(types));
      return this;
    }

    public RetryPolicy build() {
      return new RetryPolicy(maxAttempts, backoff, nonRetryable);
    }
  }
}
