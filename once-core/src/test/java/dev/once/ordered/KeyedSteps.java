package dev.once.ordered;

import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import dev.once.ConsumerBuilder;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Handler;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.Relay;
import dev.once.RetryPolicy;
import dev.once.jdbc.Dialect;
import dev.once.spi.Transport;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import dev.once.testkit.SettableClock;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import javax.sql.DataSource;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The ordering checker's rig: {@code keys} keys of {@code steps} events each, published step by
 * step (step s of every key in one producer transaction, so a key's steps commit in order), and a
 * handler that records (key, step) as its effect. {@link #OUT_OF_ORDER} counts the effects that do
 * not follow their key's previous effect by exactly one step: a decrease, a repeat or a gap.
 */
final class KeyedSteps implements AutoCloseable {
  /** Effects in commit order per key: {@code n} is taken in the handler's transaction. */
  static final String OUT_OF_ORDER =
      """
      SELECT count(*) FROM (
        SELECT step, lag(step) OVER (PARTITION BY event_key ORDER BY n) AS prev
          FROM ordered_effect) e
       WHERE step <> coalesce(prev, 0) + 1
      """;

  final TestDatabase db;
  final SettableClock clock = SettableClock.running();
  final TableQueueTransport transport;
  final Once once;

  KeyedSteps(TestDatabase db, Dialect queueDialect, OnceListener listener) {
    this(db, db.dataSource(), queueDialect, listener);
  }

  /** Once and the table queue on {@code dataSource}, a wrapper of {@code db}'s. */
  KeyedSteps(TestDatabase db, DataSource dataSource, Dialect queueDialect, OnceListener listener) {
    this(db, dataSource, queueDialect, listener, queue -> queue, null);
  }

  /**
   * With the relay publishing through {@code broker} (the queue, wrapped) and Once on {@code
   * onceDialect} (null: the database's).
   */
  KeyedSteps(
      TestDatabase db,
      DataSource dataSource,
      Dialect queueDialect,
      OnceListener listener,
      Function<TableQueueTransport, Transport> broker,
      Dialect onceDialect) {
    this.db = db;
    db.execute(
        db.isMariaDb()
            ? "CREATE TABLE ordered_effect"
                + " (n BIGINT AUTO_INCREMENT PRIMARY KEY, event_key VARCHAR(50), step INT NOT NULL)"
            : "CREATE TABLE ordered_effect"
                + " (n bigserial PRIMARY KEY, event_key text, step int NOT NULL)");
    // A worker that crashes hands its deliveries back at once: the timeout only decides when a
    // batch that is merely slow is taken for a crashed one. At 500 ms a loaded machine made that
    // happen, and each such redelivery may count an attempt of a healthy event.
    TableQueueTransport.Builder queue =
        TableQueueTransport.builder(dataSource)
            .visibilityTimeout(Duration.ofSeconds(10))
            .clock(clock);
    this.transport = (queueDialect == null ? queue : queue.dialect(queueDialect)).build();
    this.once =
        Once.builder()
            .dataSource(dataSource)
            .dialect(onceDialect == null ? db.dialect() : onceDialect)
            .transport(broker.apply(transport))
            .destinations("orders")
            .clock(clock)
            .listener(listener == null ? new OnceListener() {} : listener)
            .build();
  }

  /** Step {@code step} of key {@code key}'s id. */
  static EventId id(String key, int step) {
    return EventId.of("step", key, step);
  }

  static int step(dev.once.ReceivedEvent e) {
    String id = e.id().value();
    return Integer.parseInt(id.substring(id.lastIndexOf(':') + 1));
  }

  void publish(int keys, int steps) {
    for (int s = 1; s <= steps; s++) {
      int step = s;
      once.useTransaction(
          tx -> {
            for (int k = 0; k < keys; k++) {
              String key = "k" + k;
              tx.publish(Event.of(id(key, step), "orders", key, "Step", "{}"));
            }
          });
    }
  }

  /** The handler's effect, in its transaction. */
  static void record(dev.once.Tx tx, dev.once.ReceivedEvent e) {
    tx.update("INSERT INTO ordered_effect (event_key, step) VALUES (?, ?)", e.key(), step(e));
  }

  /** A handler that records every event but fails {@code eventId} while {@code poisoned}. */
  static Handler poisonedAt(String eventId, AtomicBoolean poisoned) {
    return (tx, e) -> {
      if (poisoned.get() && e.id().value().equals(eventId)) {
        throw new IllegalStateException("poison");
      }
      record(tx, e);
    };
  }

  /**
   * A handler for broken twins: {@code key}'s step {@code step} fails until a later step of its key
   * has committed, so that an ordering that lets a later event overtake shows it whatever the
   * machine's load (the twin cannot happen to keep order), and one that keeps order never lets that
   * step through.
   */
  static Handler failingUntilOvertaken(String key, int step) {
    String id = id(key, step).value();
    return (tx, e) -> {
      if (e.id().value().equals(id) && !laterStepCommitted(tx, key, step)) {
        throw new IllegalStateException(id + " fails until a later step of its key has committed");
      }
      record(tx, e);
    };
  }

  private static boolean laterStepCommitted(dev.once.Tx tx, String key, int step) {
    try (var st =
        tx.connection()
            .prepareStatement(
                "SELECT count(*) FROM ordered_effect WHERE event_key = ? AND step > ?")) {
      st.setString(1, key);
      st.setInt(2, step);
      try (var rs = st.executeQuery()) {
        rs.next();
        return rs.getLong(1) > 0;
      }
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Many attempts, a short backoff: for a step that fails until something else has happened. */
  static RetryPolicy patient() {
    return RetryPolicy.builder()
        .maxAttempts(1_000)
        .backoff(Duration.ofMillis(20), Duration.ofMillis(50))
        .build();
  }

  ConsumerBuilder consumer(Handler handler, RetryPolicy retry) {
    return once.consumer("warehouse")
        .subscribe("orders", handler)
        .retry(retry)
        .batchSize(8)
        .idleWait(Duration.ofMillis(20))
        .batchLinger(Duration.ZERO);
  }

  static RetryPolicy fast(int maxAttempts) {
    return RetryPolicy.builder()
        .maxAttempts(maxAttempts)
        .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
        .build();
  }

  long effects() {
    return db.count("SELECT count(*) FROM ordered_effect");
  }

  long outOfOrder() {
    return db.count(OUT_OF_ORDER);
  }

  /** The steps of {@code key}'s effects in commit order. */
  List<Integer> steps(String key) {
    try (var c = db.dataSource().getConnection();
        var ps =
            c.prepareStatement("SELECT step FROM ordered_effect WHERE event_key = ? ORDER BY n")) {
      ps.setString(1, key);
      List<Integer> steps = new java.util.ArrayList<>();
      try (var rs = ps.executeQuery()) {
        while (rs.next()) {
          steps.add(rs.getInt(1));
        }
      }
      return steps;
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Runs the relay on this thread, the consumer's workers on theirs, until {@code effects}. */
  void runUntil(Consumer consumer, long effects) {
    Relay relay = once.newRelay();
    consumer.start();
    try {
      await("effects = " + effects)
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(5))
          .until(
              () -> {
                relay.runOnce();
                return effects() >= effects;
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(e.getMessage() + "; what holds it back:\n" + state(), e);
    }
  }

  /**
   * Where a run that did not finish stands: effects, unsent outbox rows, the queue's first rows
   * (due in how many ms by the rig's clock), parked keys, dead letters and counted attempts.
   */
  String state() {
    long now = clock.instant().toEpochMilli();
    return String.join(
        "\n",
        "effects "
            + effects()
            + ", unsent outbox rows "
            + db.count("SELECT count(*) FROM once_outbox WHERE sent_at IS NULL")
            + ", queue rows "
            + db.count("SELECT count(*) FROM once_queue"),
        "queue (id, event, deliveries, parked, due in ms): "
            + rows(
                "SELECT id, event_id, delivery_count, parked, visible_at FROM once_queue"
                    + " ORDER BY parked, id",
                r ->
                    r.getLong(1)
                        + " "
                        + r.getString(2)
                        + " "
                        + r.getInt(3)
                        + " "
                        + r.getBoolean(4)
                        + " "
                        + (r.getTimestamp(5).getTime() - now)),
        "parked keys: "
            + rows(
                "SELECT event_key, event_id FROM once_parked_key",
                r -> r.getString(1) + " at " + r.getString(2)),
        "dead letters: "
            + rows(
                "SELECT event_id, status, attempts, error_class FROM once_dead_letter",
                r ->
                    r.getString(1)
                        + " "
                        + r.getString(2)
                        + " after "
                        + r.getInt(3)
                        + " "
                        + r.getString(4)),
        "attempts: "
            + rows(
                "SELECT event_id, attempts, error_class FROM once_attempt ORDER BY attempts DESC",
                r -> r.getString(1) + " " + r.getInt(2) + " " + r.getString(3)));
  }

  private interface Row {
    String of(ResultSet r) throws SQLException;
  }

  /** The first 12 rows of {@code sql}, one {@code row} each. */
  private String rows(String sql, Row row) {
    List<String> out = new ArrayList<>();
    try (Connection c = db.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet r = st.executeQuery(sql)) {
      while (r.next() && out.size() < 12) {
        out.add(row.of(r));
      }
    } catch (SQLException e) {
      return "(not read: " + e + ")";
    }
    return out.toString();
  }

  @Override
  public void close() {
    once.close();
    transport.close();
    db.close();
  }
}
