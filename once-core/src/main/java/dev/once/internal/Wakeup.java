package dev.once.internal;

import java.time.Duration;

/**
 * A wake-up signal without lost wake-ups: read {@link #generation()} before looking for work, then
 * {@link #await} returns as soon as a signal arrived after that read (or the wait ran out).
 */
public final class Wakeup {
  private long generation;

  public synchronized long generation() {
    return generation;
  }

  public synchronized void signal() {
    generation++;
    notifyAll();
  }

  /** Waits until a signal newer than {@code seen} or until {@code max} has passed. */
  public synchronized void await(long seen, Duration max) throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (generation == seen) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return;
      }
      wait(Math.max(1, left / 1_000_000), 0);
    }
  }
}
