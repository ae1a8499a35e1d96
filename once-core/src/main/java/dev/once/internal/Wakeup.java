package dev.once.internal;

import java.time.Duration;

/**
 * A wake-up signal without lost wake-ups: read {@link #generation()} before looking for work, then
 * {@link #await} returns as soon as a signal arrived after that read (or the wait ran out).
 *
 * <p>{@link #signal()} wakes one waiter, for waiters that do the same work (the relays of a
 * process: one commit is one batch for one of them; the others would only find its partitions
 * locked). A waiter that is busy when a signal arrives is not woken, but its next {@link #await}
 * with the generation it read before its work returns at once: nothing is lost. {@link
 * #signalAll()} wakes every waiter, for waiters that look for different work (the table queue's
 * receivers of several consumers and destinations).
 */
public final class Wakeup {
  private long generation;

  public synchronized long generation() {
    return generation;
  }

  /** Wakes one waiter, if any waits; any waiter that looks later finds the signal. */
  public synchronized void signal() {
    generation++;
    notify();
  }

  /** Wakes every waiter. */
  public synchronized void signalAll() {
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
