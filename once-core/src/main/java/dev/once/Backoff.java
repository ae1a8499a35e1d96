package dev.once;

import dev.once.spi.Validate;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How long to wait before the next attempt: doubling from {@code initial} up to {@code max}, with a
 * share {@code jitter} of each delay random (0.5: a delay d becomes d/2..d). The one backoff of
 * consumers ({@link RetryPolicy}), relays ({@link OnceBuilder#relayRetry}) and operations ({@link
 * OperationsBuilder#backoff}).
 *
 * @param initial the delay after the first failed attempt
 * @param max the cap of the doubling delay
 * @param jitter the random share of each delay, 0 to 1
 */
public record Backoff(Duration initial, Duration max, double jitter) {

  public Backoff {
    Validate.positive("backoff.initial", initial);
    Validate.atLeast("backoff.max", max, "backoff.initial", initial);
    Validate.fraction("backoff.jitter", jitter);
  }

  /** Doubling from {@code initial} to {@code max}, half jittered. */
  public static Backoff of(Duration initial, Duration max) {
    return new Backoff(initial, max, 0.5);
  }

  /** The delay after failed attempt number {@code attempt} (1-based). */
  public Duration delay(int attempt) {
    long exp = initial.toMillis() << Math.min(20, Math.max(0, attempt - 1));
    long delay = Math.min(max.toMillis(), exp);
    long random = (long) (delay * jitter);
    return Duration.ofMillis(delay - random + ThreadLocalRandom.current().nextLong(random + 1));
  }
}
