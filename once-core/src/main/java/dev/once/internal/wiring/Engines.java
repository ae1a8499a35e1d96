package dev.once.internal.wiring;

import dev.once.internal.EngineLifecycle;
import dev.once.internal.PoolNeeds;
import dev.once.internal.consumer.ConsumerImpl;
import dev.once.internal.postgres.PostgresListener;
import dev.once.internal.relay.RelayImpl;
import dev.once.spi.ConnectionUse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The engines an instance started (relays, retention, reconcilers, listeners), closed together, and
 * what they take of the pool, checked before each starts.
 */
final class Engines implements EngineLifecycle {
  /** How long {@link #closeAll()} waits for its engines, all of them together. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(6);

  private final List<AutoCloseable> started = new CopyOnWriteArrayList<>();
  private final PoolNeeds poolNeeds;

  /** What the transport takes of the given data source, null if it tells nothing. */
  private final ConnectionUse use;

  /** The data source as given: what {@link #use} compares with. */
  private final javax.sql.DataSource given;

  /** Whether the database wakes relays by notifications: each process then holds a LISTEN. */
  private final boolean notifies;

  Engines(PoolNeeds poolNeeds, ConnectionUse use, javax.sql.DataSource given, boolean notifies) {
    this.poolNeeds = poolNeeds;
    this.use = use;
    this.given = given;
    this.notifies = notifies;
  }

  @Override
  public void starting(Object engine, PoolNeeds.Need need) {
    Map<Object, PoolNeeds.Need> needs = new LinkedHashMap<>();
    needs.put(engine, need);
    boolean relay = engine instanceof RelayImpl;
    if (relay && notifies) {
      needs.put(PostgresListener.class, listen());
    }
    if (use != null && relay && use.notifying(given) > 0) {
      needs.put(
          ConnectionUse.class, new PoolNeeds.Need("the table queue's NOTIFY sender", 1, 0, 0));
    }
    if (use != null && engine instanceof ConsumerImpl && use.heldWhileReceiving(given) > 0) {
      needs.put(PostgresListener.class, listen());
    }
    poolNeeds.starting(needs);
  }

  /** The process's LISTEN: one of the pool's connections, or one of its own outside the pool. */
  private PoolNeeds.Need listen() {
    return PostgresListener.holdsAPoolConnection(given)
        ? PoolNeeds.LISTEN
        : PoolNeeds.LISTEN_OUTSIDE;
  }

  /** Connections a relay's publish takes besides its own (the table queue's rows). */
  int extraPerPublish() {
    return use == null ? 0 : use.perPublish(given);
  }

  @Override
  public void started(AutoCloseable engine) {
    started.add(engine);
  }

  @Override
  public void stopped(Object engine) {
    poolNeeds.stopped(engine);
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
