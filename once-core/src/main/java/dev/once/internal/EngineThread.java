package dev.once.internal;

import java.time.Duration;

/**
 * The daemon thread an engine (relay, reconciler, retention) runs its loop on: started once,
 * stopped by interrupting it and waiting up to 5 s for it to end.
 */
public final class EngineThread {
  private static final Duration JOIN = Duration.ofSeconds(5);
  private final String name;
  private volatile boolean running;
  private Thread thread;

  public EngineThread(String name) {
    this.name = name;
  }

  /** Starts {@code loop} unless already started; returns whether it started it. */
  public synchronized boolean start(Runnable loop) {
    if (thread != null) {
      return false;
    }
    running = true;
    thread = new Thread(loop, name);
    thread.setDaemon(true);
    thread.start();
    return true;
  }

  /** Whether the loop should go on. */
  public boolean running() {
    return running;
  }

  /** Whether a thread was started and not yet stopped. */
  public synchronized boolean started() {
    return thread != null;
  }

  /** Stops the loop; returns whether one was running. */
  public boolean stop() {
    Thread t;
    synchronized (this) {
      running = false;
      t = thread;
      thread = null;
    }
    if (t == null) {
      return false;
    }
    t.interrupt();
    try {
      t.join(JOIN.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return true;
  }
}
