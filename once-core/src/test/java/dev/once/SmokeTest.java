package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SmokeTest {
  @Test
  void anEventTravelsFromProducerToConsumer() {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations("orders")
                .build()) {
      db.execute("CREATE TABLE effects (event_id text)");
      Consumer consumer =
          once.consumer("c")
              .subscribe(
                  "orders", (tx, e) -> tx.update("INSERT INTO effects VALUES (?)", e.id().value()))
              .idleWait(Duration.ofMillis(100))
              .build();
      once.inTransaction(
          tx ->
              tx.publish(Event.of(EventId.of("order-paid", 1), "orders", "1", "OrderPaid", "{}")));
      assertThat(once.newRelay().runOnce()).isEqualTo(1);
      assertThat(consumer.runOnce()).isEqualTo(1);
      assertThat(db.count("SELECT count(*) FROM effects")).isEqualTo(1);
      assertThat(db.count("SELECT count(*) FROM once_queue")).isZero();
    }
  }
}
