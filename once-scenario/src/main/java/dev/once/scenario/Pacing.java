package dev.once.scenario;

import java.util.concurrent.locks.LockSupport;

/**
 * Work at a steady rate over several threads: item {@code i} is due at {@code start + i / rate}; a
 * thread that falls behind goes on at once (no catching up by bursts beyond the schedule).
 */
public final class Pacing {
  private Pacing() {}

  /** Waits until item {@code index} is due; a rate of 0 or less means as fast as possible. */
  public static void awaitTurn(long startNanos, long index, double ratePerSecond) {
    if (ratePerSecond <= 0) {
      return;
    }
    long due = startNanos + (long) (index * (1e9 / ratePerSecond));
    long wait = due - System.nanoTime();
    if (wait > 0) {
      LockSupport.parkNanos(wait);
    }
  }
}
