package dev.once.spring.autoconfigure;

import dev.once.Backoff;
import dev.once.RetryPolicy;
import java.time.Duration;

/** A core retry policy with the retry properties a user set; unset ones (null) keep core's. */
final class RetrySettings {
  private RetrySettings() {}

  static RetryPolicy over(
      RetryPolicy core, Integer maxAttempts, Duration retryDelay, Duration maxRetryDelay) {
    if (maxAttempts == null && retryDelay == null && maxRetryDelay == null) {
      return core;
    }
    Backoff b = core.backoff();
    return new RetryPolicy(
        maxAttempts != null ? maxAttempts : core.maxAttempts(),
        new Backoff(
            retryDelay != null ? retryDelay : b.initial(),
            maxRetryDelay != null ? maxRetryDelay : b.max(),
            b.jitter()),
        core.nonRetryable());
  }
}
