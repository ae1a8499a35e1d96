package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.PoisonBatchCostTest.Cost;
import dev.once.PoisonBatchCostTest.Counter;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * What an event costs end to end on the table queue built on Once's own data source (the README's
 * shape), counted on the test thread, which runs every step: {@value #EVENTS} producer transactions
 * of one business row and one event each, a relay batch, and the consumer's batches of {@value
 * #BATCH}. The producer enqueues the event's queue row in its own transaction, so there is no
 * outbox row and the relay finds nothing; the same run with the queue told to leave events to the
 * relay ({@code enqueueInProducerTransaction(false)}) writes an outbox row per event, and the relay
 * claims, marks and copies them in transactions of its own. A path that brings the relay's copy
 * back fails here: the relay then finds the events and the totals grow.
 */
class TableQueueProducerEnqueueCostTest {
  private static final int EVENTS = 16;
  private static final int BATCH = 8;

  /** What the steps cost, and what they left behind. */
  record Run(Cost producers, int relayed, Cost relay, Cost consumers, long outboxRows) {}

  @Test
  void theProducerEnqueuesInItsTransactionAndTheRelayHasNothingToDo() throws Exception {
    Run run = endToEnd(true);
    assertThat(run.relayed()).as("events the relay found").isZero();
    assertThat(run.outboxRows()).as("outbox rows written").isZero();
    assertThat(run.producers())
        .as("per event: the business row, the queue row, the commit")
        .isEqualTo(new Cost(2 * EVENTS, EVENTS, 0, 0));
    assertThat(run.consumers())
        .as(
            "the first batch's claim (bounds, claim and commit in one statement); per batch:"
                + " markers, handlers, removal with the next batch's claim, commit")
        .isEqualTo(new Cost(1 + 2 * (2 + BATCH), 1 + 2, 0, 0));
  }

  @Test
  void throughTheRelayEachEventCostsAnOutboxRowAndACopy() throws Exception {
    Run direct = endToEnd(true);
    Run relayed = endToEnd(false);
    assertThat(relayed.relayed()).isEqualTo(EVENTS);
    assertThat(relayed.outboxRows()).isEqualTo(EVENTS);
    assertThat(relayed.producers()).isEqualTo(direct.producers());
    assertThat(relayed.relay().commits())
        .as("the relay's claim and mark-sent, and the queue's own enqueue commit")
        .isEqualTo(2);
    assertThat(relayed.consumers()).isEqualTo(direct.consumers());
  }

  /**
   * The producer's enqueue for a destination no ordered group receives writes the copy's values and
   * nothing more: no parked-key check (a subquery to start, the key bound once more for it), since
   * its rows are never in key order. Before: 11 bind values. An event without headers leaves the
   * header columns to their defaults and binds its instant as microseconds, twice (before: 10, the
   * headers as an empty array, the trace, and two date-times).
   */
  @Test
  void anUnorderedEnqueueBindsTheCopyAlone() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      List<Integer> binds = new ArrayList<>();
      DataSource counting = enqueueBinds(db.dataSource(), binds);
      try (TableQueueTransport queue =
              TableQueueTransport.builder(counting).enqueueInProducerTransaction(true).build();
          Once once =
              Once.builder().dataSource(counting).transport(queue).destinations("orders").build()) {
        once.consumer("warehouse").subscribe("orders", (tx, e) -> {}).build();
        once.useTransaction(
            tx -> tx.publish(Event.of(EventId.of("o", 1), "orders", "k1", "Paid", "{}")));
        assertThat(binds)
            .as(
                "one enqueue: event id, destination, key, type, payload, enqueued and visible at,"
                    + " destination")
            .containsExactly(8);
        assertThat(
                db.count("SELECT count(*) FROM once_queue WHERE NOT parked AND NOT in_key_order"))
            .isEqualTo(1);
      }
    }
  }

  /** {@code delegate}, adding the bind values of each producer's enqueue to {@code binds}. */
  private static DataSource enqueueBinds(DataSource delegate, List<Integer> binds) {
    return proxy(
        DataSource.class,
        delegate,
        (m, args, result) ->
            result instanceof Connection c
                ? proxy(
                    Connection.class,
                    c,
                    (cm, cargs, statement) -> {
                      if (cm.getName().equals("prepareStatement")
                          && ((String) cargs[0]).contains("INSERT INTO once_queue")
                          && ((String) cargs[0]).contains("NOT EXISTS")) {
                        int at = binds.size();
                        binds.add(0);
                        return proxy(
                            PreparedStatement.class,
                            (PreparedStatement) statement,
                            (sm, sargs, r) -> {
                              if (sm.getName().startsWith("set")) {
                                binds.set(at, binds.get(at) + 1);
                              }
                              return r;
                            });
                      }
                      return statement;
                    })
                : result);
  }

  /** What a proxy makes of a call's result. */
  private interface After {
    Object of(Method m, Object[] args, Object result) throws Exception;
  }

  private static <T> T proxy(Class<T> type, T target, After after) {
    InvocationHandler h =
        (p, m, args) -> {
          try {
            return after.of(m, args, m.invoke(target, args));
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, h));
  }

  private static Run endToEnd(boolean inProducerTransaction) throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("CREATE TABLE enqueue_orders (id int PRIMARY KEY)");
      db.execute("CREATE TABLE enqueue_effects (event_id text PRIMARY KEY)");
      Counter counter = new Counter(db.dataSource());
      try (TableQueueTransport queue =
              TableQueueTransport.builder(counter.dataSource)
                  .enqueueInProducerTransaction(inProducerTransaction)
                  .build();
          Once once =
              Once.builder()
                  .dataSource(counter.dataSource)
                  .transport(queue)
                  .destinations("orders")
                  .build()) {
        Consumer consumer =
            once.consumer("warehouse")
                .subscribe(
                    "orders",
                    (tx, e) ->
                        tx.update(
                            "INSERT INTO enqueue_effects (event_id) VALUES (?)", e.id().value()))
                .batchSize(BATCH)
                .batchLinger(Duration.ZERO)
                .idleWait(Duration.ofMillis(1))
                .build();
        Relay relay = once.newRelay();
        counter.reset();
        for (int i = 0; i < EVENTS; i++) {
          int order = i;
          once.useTransaction(
              tx -> {
                tx.update("INSERT INTO enqueue_orders (id) VALUES (?)", order);
                tx.publish(Event.of(EventId.of("o", order), "orders", "k" + order, "Paid", "{}"));
              });
        }
        Cost producers = counter.cost();
        counter.reset();
        int relayed = relay.runOnce();
        Cost relayCost = counter.cost();
        counter.reset();
        for (int i = 0; i < EVENTS / BATCH; i++) {
          assertThat(consumer.runOnce()).isEqualTo(BATCH);
        }
        Cost consumers = counter.cost();
        assertThat(db.count("SELECT count(*) FROM enqueue_effects")).isEqualTo(EVENTS);
        assertThat(db.count("SELECT count(*) FROM once_inbox")).isEqualTo(EVENTS);
        assertThat(db.count("SELECT count(*) FROM once_queue")).as("rows left").isZero();
        return new Run(
            producers, relayed, relayCost, consumers, db.count("SELECT count(*) FROM once_outbox"));
      }
    }
  }
}
