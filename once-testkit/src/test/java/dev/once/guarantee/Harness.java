package dev.once.guarantee;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Handler;
import dev.once.Once;
import dev.once.OnceBuilder;
import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.RetryPolicy;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import dev.once.testkit.SimulatedCrash;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * One test's pipeline on a real PostgreSQL: a table queue with a short visibility timeout, an
 * effects table without a unique constraint (a second effect is counted, not prevented), and a
 * record of every outcome.
 */
final class Harness implements AutoCloseable {
  static final String DEST = "orders";
  static final String FOLLOW = "dispatch";
  static final Duration VISIBILITY = Duration.ofMillis(500);

  final TestDatabase db;
  final TableQueueTransport transport;
  final List<Outcome> outcomes = new CopyOnWriteArrayList<>();
  final Once once;

  Harness(TestDatabase db, OnceListener... listeners) {
    this(db, b -> b, listeners);
  }

  Harness(TestDatabase db, UnaryOperator<OnceBuilder> tweak, OnceListener... listeners) {
    this(db, false, tweak, listeners);
  }

  /**
   * {@code queueApart}: the table queue gets its own data source object (on the same database), so
   * that relays publish to it in a transaction of its own, as to a broker; otherwise it shares
   * Once's data source and relays publish to it in their own transaction ({@code
   * publishInRelayTransaction}; producers leave every event to the relay).
   */
  Harness(
      TestDatabase db,
      boolean queueApart,
      UnaryOperator<OnceBuilder> tweak,
      OnceListener... listeners) {
    this(db, queueApart, false, tweak, listeners);
  }

  /**
   * The table queue on Once's data source with its default: producers and handlers enqueue their
   * events in their own transaction, no outbox row and no relay ({@code
   * enqueueInProducerTransaction}).
   */
  static Harness enqueuingInProducer(TestDatabase db, OnceListener... listeners) {
    return new Harness(db, false, true, b -> b, listeners);
  }

  private Harness(
      TestDatabase db,
      boolean queueApart,
      boolean inProducer,
      UnaryOperator<OnceBuilder> tweak,
      OnceListener... listeners) {
    this.db = db;
    db.execute("CREATE TABLE effects (event_id text NOT NULL, worker text)");
    this.transport =
        TableQueueTransport.builder(queueApart ? distinct(db.dataSource()) : db.dataSource())
            .visibilityTimeout(VISIBILITY)
            .publishInRelayTransaction(!queueApart && !inProducer)
            .enqueueInProducerTransaction(inProducer)
            .build();
    OnceBuilder builder =
        Once.builder().dataSource(db.dataSource()).transport(transport).destinations(DEST, FOLLOW);
    for (OnceListener l : listeners) {
      builder.listener(l);
    }
    builder.listener(
        new OnceListener() {
          @Override
          public void outcome(ReceivedEvent event, Outcome outcome, Duration took) {
            outcomes.add(outcome);
          }
        });
    this.once = tweak.apply(builder).build();
    transport.declare(FOLLOW, "downstream");
  }

  /** Another object for the same data source: to Once, a different database. */
  private static DataSource distinct(DataSource dataSource) {
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              try {
                return method.invoke(dataSource, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  /** The handler of the tests: one effect row and one outgoing event, all through {@code tx}. */
  static final Handler EFFECT_AND_FOLLOW =
      (tx, e) -> {
        tx.update("INSERT INTO effects (event_id) VALUES (?)", e.id().value());
        tx.publish(
            e.follow("dispatch-queued")
                .destination(FOLLOW)
                .type("DispatchQueued")
                .payload("{}")
                .build());
      };

  Consumer consumer(String id, Handler handler, int batchSize) {
    return once.consumer(id)
        .subscribe(DEST, handler)
        .batchSize(batchSize)
        .idleWait(Duration.ofMillis(100))
        .retry(RetryPolicy.builder().backoff(Duration.ofMillis(50), Duration.ofMillis(200)).build())
        .build();
  }

  static Event event(String id) {
    return Event.of(new EventId(id), DEST, "key-" + id, "OrderPaid", "{\"same\":\"content\"}");
  }

  /**
   * Commits the event to the outbox and relays it (or enqueues it, {@link #enqueuingInProducer}).
   */
  void produce(Event event) {
    once.inTransaction(tx -> tx.publish(event));
    while (once.newRelay().runOnce() > 0) {
      // until the outbox is empty
    }
  }

  /** Runs the consumer (restarting it after simulated crashes) until {@code done} or 10 s. */
  void runUntil(Consumer consumer, java.util.function.BooleanSupplier done) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!done.getAsBoolean() && System.nanoTime() < deadline) {
      try {
        consumer.runOnce();
      } catch (SimulatedCrash crashed) {
        // the worker died at the window; the next runOnce is the restarted worker
      }
    }
  }

  long effects(String eventId) {
    return db.count("SELECT count(*) FROM effects WHERE event_id = ?", eventId);
  }

  long markers(String consumerId, String eventId) {
    return db.count(
        "SELECT count(*) FROM once_inbox WHERE consumer_id = ? AND event_id = ?",
        consumerId,
        eventId);
  }

  /**
   * Outgoing events the handler wrote for {@code eventId} (its derived id): outbox rows, or queue
   * rows where the handler enqueued them ({@link #enqueuingInProducer}; no relay runs after the
   * consumer, so a relayed row is never counted twice).
   */
  long followRows(String consumerId, String eventId) {
    String derived = EventId.derive(consumerId, new EventId(eventId), "dispatch-queued").value();
    return db.count("SELECT count(*) FROM once_outbox WHERE event_id = ?", derived)
        + db.count("SELECT count(*) FROM once_queue WHERE event_id = ?", derived);
  }

  long count(Outcome outcome) {
    return outcomes.stream().filter(o -> o == outcome).count();
  }

  @Override
  public void close() {
    once.close();
    transport.close();
  }
}
