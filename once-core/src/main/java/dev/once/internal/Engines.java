package dev.once.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The engines an instance started (relays, retention, reconcilers, listeners), closed together. */
final class Engines {
  /** How long {@link #closeAll()} waits for its engines, all of them together. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(6);

  private final List<AutoCloseable> started = new CopyOnWriteArrayList<>();

  void add(AutoCloseable engine) {
    started.add(engine);
  }

  /**
   * Closes every engine, all at once: each waits a few seconds for its threads, and one stuck in a
   * read of a half-open connection (it ends at the network timeout) must not add its wait to the
   * others'.
   */
  void closeAll() {
    List<Thread> closing = new ArrayList<>();
    for (AutoCloseable engine : started) {
      Thread t = new Thread(() -> closeQuietly(engine), "once-close");
      t.setDaemon(true);
      t.start();
      closing.add(t);
    }
    long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
    for (Thread t : closing) {
      long left = (deadline - System.nanoTime()) / 1_000_000;
      if (left <= 0) {
        break;
      }
      try {
        t.join(left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    started.clear();
  }

  private static void closeQuietly(AutoCloseable engine) {
    try {
      engine.close();
    } catch (Exception e) {
      // closing is best effort; each engine logs its own trouble
    }
  }
}
