package dev.once.internal;

import dev.once.Reconciler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Takes due operations one by one through the same claim as a caller, and runs them. */
final class ReconcilerImpl implements Reconciler {
  private static final Logger log = LoggerFactory.getLogger(ReconcilerImpl.class);
  private final OnceImpl once;
  private final OperationsImpl operations;
  private volatile boolean running;
  private Thread thread;

  ReconcilerImpl(OnceImpl once, OperationsImpl operations) {
    this.once = once;
    this.operations = operations;
  }

  @Override
  public int runOnce() {
    List<String> due =
        new ArrayList<>(
            operations
                .store()
                .due(
                    operations.provider(),
                    once.config().clock().instant(),
                    operations.config().reconcileBatchSize()));
    Collections.shuffle(due); // several reconcilers: fewer collisions on the same rows
    int taken = 0;
    for (String id : due) {
      OperationStore.Claim claim = operations.claim(id, null);
      if (claim.kind() == OperationStore.ClaimKind.CLAIMED) {
        operations.runner().run(claim.before(), claim.owner());
        taken++;
      }
    }
    return taken;
  }

  @Override
  public synchronized Reconciler start() {
    if (running) {
      return this;
    }
    running = true;
    thread = new Thread(this::loop, "once-reconciler-" + operations.provider());
    thread.setDaemon(true);
    thread.start();
    once.started(this);
    return this;
  }

  private void loop() {
    Duration interval = operations.config().reconcileInterval();
    while (running) {
      try {
        if (runOnce() == 0) {
          Thread.sleep(interval.toMillis());
        }
      } catch (InterruptedException e) {
        break;
      } catch (Throwable e) { // Error = crash mid-operation: its lease runs out, it is taken again
        if (!running) {
          break;
        }
        log.warn("reconciler {} run failed: {}", operations.provider(), e.toString());
        sleepQuietly(interval);
      }
    }
  }

  private static void sleepQuietly(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    Thread t;
    synchronized (this) {
      running = false;
      t = thread;
      thread = null;
    }
    if (t != null) {
      t.interrupt();
      try {
        t.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
