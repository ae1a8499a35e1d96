package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Which events a producer enqueues itself on the table queue built with {@code
 * enqueueInProducerTransaction(true)}, and which still take the outbox: one no consumer group is
 * bound to waits there for the relay, as it always did; one of a destination a group receives in
 * key order goes through the relay, which keeps a key's rows in order; an id published twice in one
 * transaction is enqueued once.
 */
class TableQueueProducerEnqueueTest {

  @Test
  void anEventNoGroupIsBoundToWaitsInTheOutboxAndIsDeliveredOnceAGroupIs() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = enqueuing(db);
        Once once = once(db, queue)) {
      db.execute("CREATE TABLE effects (event_id text PRIMARY KEY)");
      once.useTransaction(tx -> tx.publish(event(1)));
      assertThat(db.count("SELECT count(*) FROM once_queue")).as("queue rows").isZero();
      assertThat(db.count("SELECT count(*) FROM once_outbox")).as("outbox rows").isEqualTo(1);

      Consumer consumer = consumer(once, false);
      assertThat(once.newRelay().runOnce()).as("published by the relay").isEqualTo(1);
      once.useTransaction(tx -> tx.publish(event(2)));
      assertThat(db.count("SELECT count(*) FROM once_outbox")).as("outbox rows").isEqualTo(1);
      assertThat(consumer.runOnce()).isEqualTo(2);
      assertThat(db.count("SELECT count(*) FROM effects")).isEqualTo(2);
    }
  }

  @Test
  void anEventOfAKeyOrderedDestinationGoesThroughTheRelay() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = enqueuing(db);
        Once once = once(db, queue)) {
      db.execute("CREATE TABLE effects (event_id text PRIMARY KEY)");
      Consumer consumer = consumer(once, true);
      once.useTransaction(
          tx -> {
            tx.publish(event(1));
            tx.publish(event(2));
          });
      assertThat(db.count("SELECT count(*) FROM once_queue")).as("queue rows").isZero();
      assertThat(once.newRelay().runOnce()).as("published by the relay").isEqualTo(2);
      while (consumer.runOnce() > 0) {
        // one event of the key at a time
      }
      assertThat(db.count("SELECT count(*) FROM effects")).isEqualTo(2);
    }
  }

  @Test
  void anIdPublishedTwiceInOneTransactionIsEnqueuedOnce() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = enqueuing(db);
        Once once = once(db, queue)) {
      db.execute("CREATE TABLE effects (event_id text PRIMARY KEY)");
      consumer(once, false);
      boolean[] written = new boolean[2];
      once.useTransaction(
          tx -> {
            written[0] = tx.publish(event(1));
            written[1] = tx.publish(event(1));
          });
      assertThat(written).containsExactly(true, false);
      assertThat(db.count("SELECT count(*) FROM once_queue")).isEqualTo(1);
      assertThat(db.count("SELECT count(*) FROM once_outbox")).isZero();
    }
  }

  private static TableQueueTransport enqueuing(TestDatabase db) {
    return TableQueueTransport.builder(db.dataSource()).enqueueInProducerTransaction(true).build();
  }

  private static Once once(TestDatabase db, TableQueueTransport queue) {
    return Once.builder()
        .dataSource(db.dataSource())
        .transport(queue)
        .destinations("orders")
        .build();
  }

  private static Consumer consumer(Once once, boolean ordered) {
    ConsumerBuilder b =
        once.consumer("warehouse")
            .subscribe(
                "orders",
                (tx, e) -> tx.update("INSERT INTO effects (event_id) VALUES (?)", e.id().value()))
            .batchLinger(Duration.ZERO)
            .idleWait(Duration.ofMillis(1));
    return (ordered ? b.ordered() : b).build();
  }

  private static Event event(int i) {
    return Event.of(EventId.of("o", i), "orders", "k", "Paid", "{}");
  }
}
