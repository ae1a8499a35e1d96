package dev.once.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.once.Consumer;
import dev.once.DatabaseTimeouts;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.Relay;
import dev.once.spi.Transport;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A worker whose database connections go half-open in the middle of a batch: a {@link TcpProxy}
 * between its pool and the database {@linkplain TcpProxy#blackhole() blackholes} every connection
 * open at that moment — nothing is forwarded either way and neither side is told, as after a
 * failover or a NAT that dropped its state. The handler's statement then waits for an answer that
 * never comes, its transaction stays open on the server with the batch's markers locked, and every
 * other thread that uses one of those connections waits too.
 *
 * <p>With {@link DatabaseTimeouts} (short ones here, so that the test is quick) the worker gets
 * over it by itself: its reads end at the network timeout, the server ends the dead sessions at the
 * idle-in-transaction timeout, and everything is processed once. The twin, {@link
 * #withoutBoundsTheWorkerHangsForGood()}, runs on no bounds (the behaviour before them): the batch
 * never finishes.
 *
 * <p>Subclass it per transport and database: a worker is a pool of its own through a proxy of its
 * own, and a transport on the test broker (the table queue: on that pool).
 */
public abstract class HalfOpenContract {
  static final int EVENTS = 200;
  static final int BATCH = 32;

  /** Network 2 s, lock wait 1 s, idle in transaction 3 s. */
  protected static final DatabaseTimeouts SHORT =
      new DatabaseTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofSeconds(3));

  /**
   * The relay's confirm timeout: short as the bounds of {@link #SHORT}. A relay's transaction stays
   * open while it waits for the broker's confirms, so the server keeps it open while it is idle up
   * to this plus 10 s (not the 3 s of {@link #SHORT}); on the default 30 s, a relay whose
   * connection went half-open in the middle of a publish held its partitions 40 s, and its rows
   * were sent again only then (on SQS, whose relay takes seconds to publish the 200 events, the
   * blackhole falls in its publish and the test drained in 38–40 s).
   */
  static final Duration CONFIRM = Duration.ofSeconds(5);

  /** How long the bounded worker may take to process everything after the blackhole. */
  static final Duration RECOVERY = Duration.ofSeconds(45);

  /** How long {@code Once.close()} may take, stuck threads or not. */
  static final Duration CLOSE = Duration.ofSeconds(8);

  private static final AtomicInteger counter = new AtomicInteger();

  /** One process: a pool through a proxy of its own, a transport. */
  protected interface Worker {
    DataSource dataSource();

    Transport transport();

    TcpProxy proxy();

    /** Closes its transport, its pool and its proxy. */
    void kill();

    /** The worker of {@code pool} (reached through {@code proxy}) and {@code transport}. */
    static <P extends DataSource & AutoCloseable> Worker of(
        P pool, Transport transport, TcpProxy proxy) {
      return new Worker() {
        @Override
        public DataSource dataSource() {
          return pool;
        }

        @Override
        public Transport transport() {
          return transport;
        }

        @Override
        public TcpProxy proxy() {
          return proxy;
        }

        @Override
        public void kill() {
          transport.close();
          proxy.close();
          try {
            pool.close();
          } catch (Exception e) {
            throw new IllegalStateException("closing the worker's pool", e);
          }
        }
      };
    }
  }

  /** The test's database with Once's schema, for the setup and the checks. */
  protected abstract DataSource dataSource();

  /**
   * A new process: a pool on the test database through a new {@link TcpProxy}, a transport on the
   * test broker; a table queue on that pool with {@code timeouts} and a visibility timeout of a few
   * seconds.
   */
  protected abstract Worker newWorker(DatabaseTimeouts timeouts);

  @Test
  void aWorkerWhoseConnectionsGoHalfOpenMidBatchRecoversByItselfAndProcessesEachEventOnce()
      throws Exception {
    Run run = new Run(SHORT);
    try {
      long recovered = run.untilDrained(RECOVERY);
      System.out.printf(
          "%s: %d connections went half-open; all %d events processed %d ms after%n",
          getClass().getSimpleName(), run.silenced.get(), EVENTS, recovered);
      assertTrue(recovered >= 0, "not drained " + RECOVERY + " after the blackhole: " + run);
      run.checkOnce();
    } finally {
      long closing = run.close();
      assertTrue(closing < CLOSE.toMillis(), "closing took " + closing + " ms");
    }
  }

  /**
   * The twin on {@link DatabaseTimeouts#NONE}: the batch that went half-open never finishes, and
   * its events are never processed (nothing else can take them, or they wait for its locks).
   * Closing still ends within {@link #CLOSE}. A subclass runs it where it wants the proof; it waits
   * 12 s, about 3 times what the bounded worker needs.
   */
  protected void withoutBoundsTheWorkerHangsForGood() throws Exception {
    Run run = new Run(DatabaseTimeouts.NONE);
    try {
      long recovered = run.untilDrained(Duration.ofSeconds(12));
      assertEquals(-1, recovered, "drained with no bounds");
      assertTrue(run.effects() < EVENTS, "effects " + run.effects());
    } finally {
      long closing = run.close();
      assertTrue(closing < CLOSE.toMillis(), "closing took " + closing + " ms");
    }
  }

  /** One worker through a proxy: 200 events, blackholed at its 40th handled delivery. */
  private final class Run {
    final String destination = unique("halfopen");
    final String consumerId = unique("c");
    final String table = "halfopen_effects_" + counter.incrementAndGet();
    final AtomicInteger handled = new AtomicInteger();
    final AtomicInteger silenced = new AtomicInteger(-1);
    final AtomicLong blackholedAt = new AtomicLong();
    final Worker worker;
    final Once once;
    final Relay relay;
    final Consumer consumer;

    Run(DatabaseTimeouts timeouts) throws SQLException {
      execute("CREATE TABLE " + table + " (event_id varchar(200) NOT NULL)");
      worker = newWorker(timeouts);
      once =
          Once.builder()
              .dataSource(worker.dataSource())
              .transport(worker.transport())
              .destinations(destination)
              .relayIdleWait(Duration.ofMillis(200))
              .confirmTimeout(CONFIRM)
              .databaseTimeouts(timeouts)
              .build();
      once.useTransaction(
          tx -> {
            for (int i = 0; i < EVENTS; i++) {
              tx.publish(
                  Event.of(EventId.of("order-paid", unique("o")), destination, "k" + i, "T", "{}"));
            }
          });
      relay = once.newRelay();
      consumer =
          once.consumer(consumerId)
              .subscribe(
                  destination,
                  (tx, e) -> {
                    if (handled.incrementAndGet() == 40) {
                      blackholedAt.set(System.nanoTime());
                      silenced.set(worker.proxy().blackhole());
                    }
                    tx.update("INSERT INTO " + table + " VALUES (?)", e.id().value());
                  })
              .batchSize(BATCH)
              .workers(2)
              .idleWait(Duration.ofMillis(500))
              .build();
      relay.start();
      consumer.start();
    }

    /**
     * Milliseconds from the blackhole until every event is processed and the outbox sent, or -1
     * after {@code max}.
     */
    long untilDrained(Duration max) throws Exception {
      long deadline = System.nanoTime() + max.toNanos();
      while (System.nanoTime() < deadline) {
        if (silenced.get() >= 0 && effectsOrZero() >= EVENTS && unsentOrAll() == 0) {
          return (System.nanoTime() - blackholedAt.get()) / 1_000_000;
        }
        TimeUnit.MILLISECONDS.sleep(50);
      }
      return -1;
    }

    /** Each event's effect once, its marker, no dead letter, the outbox sent. */
    void checkOnce() throws SQLException {
      assertEquals(EVENTS, effects(), "effects");
      assertEquals(EVENTS, count("SELECT count(DISTINCT event_id) FROM " + table), "distinct");
      assertEquals(
          EVENTS,
          count("SELECT count(*) FROM once_inbox WHERE consumer_id = ?", consumerId),
          "markers");
      assertEquals(
          0,
          count("SELECT count(*) FROM once_dead_letter WHERE consumer_id = ?", consumerId),
          "dead letters");
      assertEquals(
          0,
          count(
              "SELECT count(*) FROM once_outbox WHERE destination = ? AND sent_at IS NULL",
              destination),
          "unsent outbox rows");
      assertFalse(silenced.get() <= 0, "the blackhole silenced no connection");
    }

    long effects() throws SQLException {
      return count("SELECT count(*) FROM " + table);
    }

    /** Outbox rows not yet marked sent (a relay whose mark-sent was cut publishes them again). */
    private long unsentOrAll() {
      try {
        return count(
            "SELECT count(*) FROM once_outbox WHERE destination = ? AND sent_at IS NULL",
            destination);
      } catch (SQLException e) {
        return EVENTS;
      }
    }

    private long effectsOrZero() {
      try {
        return effects();
      } catch (SQLException e) {
        return 0;
      }
    }

    /** Closes the instance and its engines (timed), then the worker; the milliseconds it took. */
    long close() {
      long start = System.nanoTime();
      once.close();
      long took = (System.nanoTime() - start) / 1_000_000;
      worker.kill();
      return took;
    }

    @Override
    public String toString() {
      return "handled " + handled + ", effects " + effectsOrZero() + " of " + EVENTS;
    }
  }

  /** A name no other test uses. */
  protected static String unique(String base) {
    return base + "-" + ProcessHandle.current().pid() + "-" + counter.incrementAndGet();
  }

  private void execute(String sql) throws SQLException {
    ContractSql.execute(dataSource(), sql);
  }

  private long count(String sql, Object... params) throws SQLException {
    return ContractSql.count(dataSource(), sql, params);
  }
}
