package dev.once.internal;

import java.time.Duration;

/**
 * The pause of an engine loop after a failure: doubles from 100 ms up to 5 s; resets on success.
 * The cap bounds how long a loop may still sleep once the database or broker is back (a few seconds
 * after an outage of any length), at the cost of one try per loop every 5 s while it lasts. Not to
 * be confused with {@link dev.once.Backoff}, the configured delay between the attempts of a
 * message, a row or an operation.
 */
public final class Pause {
  private static final Duration FIRST = Duration.ofMillis(100);
  public static final Duration MAX = Duration.ofSeconds(5);
  private Duration next = FIRST;

  public Duration next() {
    return next;
  }

  public void reset() {
    next = FIRST;
  }

  /** Sleeps the current pause and doubles the next one. */
  public void take() {
    sleep(next);
    next = next.multipliedBy(2).compareTo(MAX) <= 0 ? next.multipliedBy(2) : MAX;
  }

  /** Sleeps, keeping the thread's interrupt flag if interrupted. */
  public static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
