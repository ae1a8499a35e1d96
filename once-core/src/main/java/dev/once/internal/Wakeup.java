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
 *
 * <p>Waiters that each look for the same work, where one look finds all of it ({@link #awaitLook}:
 * the receivers of one table-queue group, whose claim takes every visible row up to its limit), are
 * woken one look at a time: the waiter a signal wakes holds a <em>look to come</em> until it {@link
 * #looking begins}, and a signal meanwhile wakes nobody, as that look will find what the signal
 * announces. Without it, a receiver that lingered after its wake-up found the rows of the commits
 * that woke the others, and their claims came back empty.
 */
public final class Wakeup {
  private long generation;

  /** Threads in {@link #awaitLook}. */
  private int lookers;

  /** Looks promised to lookers woken by a signal that have not yet returned from the wait. */
  private int granted;

  /** Looks promised and not yet begun ({@link #looking}): while any, a signal wakes nobody. */
  private int coming;

  public synchronized long generation() {
    return generation;
  }

  /** Wakes one waiter, if any waits; any waiter that looks later finds the signal. */
  public synchronized void signal() {
    if (coming > 0) {
      return; // a look that has not begun yet will find what this signal announces
    }
    generation++;
    if (lookers > granted) {
      granted++;
      coming++;
    }
    notify();
  }

  /** Wakes every waiter. */
  public synchronized void signalAll() {
    generation++;
    notifyAll();
  }

  /**
   * {@link #await} for a waiter that looks for work when it returns. True: a signal chose it to
   * look, and until it calls {@link #looking} (once, just before its look begins) signals wake
   * nobody.
   */
  public synchronized boolean awaitLook(long seen, Duration max) throws InterruptedException {
    lookers++;
    try {
      await(seen, max);
    } catch (InterruptedException e) {
      lookers--;
      if (granted > lookers) { // a look promised to a waiter that will not look: signal anew
        granted--;
        looking();
        signal();
      }
      throw e;
    }
    lookers--;
    if (granted > 0) {
      granted--;
      return true;
    }
    return false;
  }

  /** Whether a look promised by a signal has not begun yet: it will find what is there now. */
  public synchronized boolean lookComing() {
    return coming > 0;
  }

  /** The look that {@link #awaitLook} promised begins: signals wake waiters again. */
  public synchronized void looking() {
    coming--;
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
