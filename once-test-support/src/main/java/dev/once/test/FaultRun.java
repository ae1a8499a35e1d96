package dev.once.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Event;
import dev.once.EventId;
import dev.once.Handler;
import dev.once.Once;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/**
 * Events flowing through a running Once while a test breaks the infrastructure under it: a producer
 * that keeps writing (and, as an application would, tries a failed transaction again with the same
 * event ids), a handler whose business effect is a row in {@code effects} (no unique constraint, so
 * a doubled effect shows as a second row; with the worker thread and the time of the insert), and
 * the checks and timings the fault tests report.
 */
public final class FaultRun {
  public static final String DESTINATION = "orders";

  private final DataSource dataSource;
  private final AtomicInteger producerFailures = new AtomicInteger();

  public FaultRun(DataSource dataSource) {
    this.dataSource = dataSource;
    execute(
        "CREATE TABLE IF NOT EXISTS effects (event_id text NOT NULL, worker text NOT NULL,"
            + " at timestamptz NOT NULL DEFAULT clock_timestamp())");
  }

  /** The business effect: one row per run of the handler, with the worker thread's name. */
  public static Handler effect() {
    return (tx, e) ->
        tx.update(
            "INSERT INTO effects (event_id, worker) VALUES (?, ?)",
            e.id().value(),
            Thread.currentThread().getName());
  }

  /**
   * Writes events {@code from} (included) to {@code to} (excluded), 50 per transaction, keys spread
   * over 100, pausing {@code pause} between transactions; a transaction that fails (the database is
   * down) is tried again with the same ids after 200 ms, until {@code giveUp} has passed.
   */
  public void produce(Once once, int from, int to, Duration pause, Duration giveUp) {
    long deadline = System.nanoTime() + giveUp.toNanos();
    for (int start = from; start < to; start += 50) {
      int first = start;
      int last = Math.min(to, start + 50);
      while (true) {
        try {
          once.inTransaction(
              tx -> {
                for (int i = first; i < last; i++) {
                  tx.publish(
                      Event.of(
                          EventId.of("order-paid", i),
                          DESTINATION,
                          "k" + (i % 100),
                          "Order",
                          "{}"));
                }
                return null;
              });
          break;
        } catch (RuntimeException e) {
          producerFailures.incrementAndGet();
          if (System.nanoTime() > deadline) {
            throw e;
          }
          sleep(Duration.ofMillis(200));
        }
      }
      sleep(pause);
    }
  }

  /** {@link #produce} on a thread of its own. */
  public Thread produceInBackground(Once once, int from, int to, Duration pause) {
    Thread t = new Thread(() -> produce(once, from, to, pause, Duration.ofSeconds(60)), "producer");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** Producer transactions that failed and were tried again. */
  public int producerFailures() {
    return producerFailures.get();
  }

  public long effects() {
    return count("SELECT count(*) FROM effects");
  }

  public long distinctEffects() {
    return count("SELECT count(DISTINCT event_id) FROM effects");
  }

  /** Effects, or -1 while the database does not answer. */
  public long effectsOrMinusOne() {
    try {
      return effects();
    } catch (RuntimeException e) {
      return -1;
    }
  }

  /** Milliseconds since the epoch of the first effect inserted after {@code sinceMillis}, or -1. */
  public long firstEffectAfter(long sinceMillis) {
    return count(
        "SELECT coalesce(floor(extract(epoch FROM min(at)) * 1000), -1)::bigint FROM effects"
            + " WHERE at > to_timestamp("
            + sinceMillis / 1000.0
            + ")");
  }

  /** How many different worker threads inserted effects after {@code sinceMillis}. */
  public long workersAfter(long sinceMillis) {
    return count(
        "SELECT count(DISTINCT worker) FROM effects WHERE at > to_timestamp("
            + sinceMillis / 1000.0
            + ")");
  }

  /**
   * Waits until every one of {@code n} events has an effect and no outbox row is pending; fails
   * after {@code max}, saying which of the two was missing.
   */
  public void awaitAll(int n, Duration max) {
    await()
        .atMost(max)
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions() // the database is not back yet
        .untilAsserted(
            () -> {
              assertThat(distinctEffects()).as("events with an effect").isGreaterThanOrEqualTo(n);
              assertThat(pending()).as("outbox rows not sent").isZero();
            });
  }

  /** {@link #assertEachProcessedOnce(int, LongSupplier)} on the table queue (its rows left). */
  public void assertEachProcessedOnce(int n) {
    assertEachProcessedOnce(n, () -> count("SELECT count(*) FROM once_queue"));
  }

  /**
   * Checks the data, not the acknowledgements: each of {@code n} events has exactly one effect and
   * one marker, no outbox row is pending and nothing was dead-lettered. First waits until the
   * broker has nothing left to deliver ({@code undelivered} counts it: queue rows, messages): from
   * then on no redelivery can come, so a doubled effect would already show — counted, not waited
   * for.
   */
  public void assertEachProcessedOnce(int n, LongSupplier undelivered) {
    await()
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(100))
        .ignoreExceptions()
        .until(() -> undelivered.getAsLong() == 0);
    assertThat(pending()).as("outbox rows not sent").isZero();
    assertThat(count("SELECT count(*) FROM once_dead_letter")).as("dead letters").isZero();
    assertThat(distinctEffects()).as("events with an effect (none lost)").isEqualTo(n);
    assertThat(effects()).as("effects (a second effect would show here)").isEqualTo(n);
    assertThat(count("SELECT count(*) FROM once_inbox")).as("markers").isEqualTo(n);
  }

  public long pending() {
    return count("SELECT count(*) FROM once_outbox WHERE sent_at IS NULL");
  }

  /** The single number a query returns. */
  public long count(String sql) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  private void execute(String sql) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  public static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
