package dev.once;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.PostgresWire;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A table queue wakes the receivers of its own process directly; its {@code NOTIFY} is for other
 * processes. With nobody else listening on the schema, it sends none: a process that produces and
 * consumes alone sent one after every burst of commits (0.33 auto-commit statements per order in
 * the probe, each also read and skipped by its own {@code LISTEN}). Once another process listens,
 * it is notified.
 */
class QueueNotifiesOtherProcessesTest {
  private static final int ORDERS = 40;

  @Test
  void aProcessAloneSendsNoNotificationAndAnotherListeningGetsThem() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        PostgresWire wire = PostgresWire.to(db, "shipments");
        HikariDataSource pool = db.newPoolVia(wire.port(), 6, "sslmode=disable");
        TableQueueTransport queue =
            TableQueueTransport.builder(pool).enqueueInProducerTransaction(true).build();
        Once once =
            Once.builder().dataSource(pool).transport(queue).destinations("orders").build()) {
      db.execute("CREATE TABLE shipments (order_id bigint PRIMARY KEY)");
      once.consumer("shipping")
          .subscribe(
              "orders",
              (tx, e) ->
                  tx.update("INSERT INTO shipments VALUES (?)", Long.parseLong(e.payloadText())))
          .build()
          .start();
      AtomicLong next = new AtomicLong();
      order(once, next.incrementAndGet());
      await("the queue notifier's first look for listeners")
          .atMost(Duration.ofSeconds(20))
          .until(() -> wire.other().looks() >= 1);
      order(once, next.incrementAndGet()); // after the look's answer is stored
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> db.count("SELECT count(*) FROM shipments") == 2);
      wire.reset();

      for (int i = 0; i < ORDERS; i++) {
        order(once, next.incrementAndGet());
      }
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> db.count("SELECT count(*) FROM shipments") == ORDERS + 2);
      assertThat(wire.marked().notifies() + wire.other().notifies())
          .as("NOTIFYs of a process that produces and consumes alone, %d orders", ORDERS)
          .isZero();

      try (HikariDataSource elsewhere = db.newPool(3);
          TableQueueTransport theirs = TableQueueTransport.create(elsewhere);
          Once other =
              Once.builder()
                  .dataSource(elsewhere)
                  .transport(theirs)
                  .destinations("orders")
                  .build()) {
        other.consumer("billing").subscribe("orders", (tx, e) -> {}).build().start();
        // another process listens: within a look (a second) the orders notify it
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () -> {
                  order(once, next.incrementAndGet());
                  return wire.marked().notifies() + wire.other().notifies() >= 1;
                });
      }
    }
  }

  private static void order(Once once, long orderId) {
    once.useTransaction(
        tx -> {
          tx.publish(
              Event.of(
                  EventId.of("order-paid", orderId),
                  "orders",
                  Long.toString(orderId),
                  "OrderPaid",
                  Long.toString(orderId)));
        });
  }
}
