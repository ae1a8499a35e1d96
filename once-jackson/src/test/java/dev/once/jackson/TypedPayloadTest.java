package dev.once.jackson;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import dev.once.DeadLetter;
import dev.once.DeadLetterFilter;
import dev.once.Event;
import dev.once.EventId;
import dev.once.InvalidEventException;
import dev.once.Once;
import dev.once.PayloadCodec;
import dev.once.Relay;
import dev.once.RetryPolicy;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class TypedPayloadTest {

  public record OrderPaid(long orderId, long cents) {}

  @Test
  void aRecordGoesOutAsJsonAndComesBackAsTheSameRecord() {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
        Once once = once(db, transport)) {
      db.execute("CREATE TABLE shipped (order_id bigint, cents bigint, event_id text)");
      once.useTransaction(
          tx ->
              tx.publish(
                  Event.builder()
                      .id(EventId.of("order-paid", 814))
                      .destination("orders")
                      .key(814)
                      .payload(new OrderPaid(814, 1200))
                      .build()));
      Consumer consumer =
          once.consumer("warehouse")
              .subscribe(
                  "orders",
                  OrderPaid.class,
                  (tx, paid, event) ->
                      tx.update(
                          "INSERT INTO shipped VALUES (?, ?, ?)",
                          paid.orderId(),
                          paid.cents(),
                          event.id().value()))
              .build();
      drain(once, consumer, db, "SELECT count(*) FROM shipped", 1);

      assertThat(db.count("SELECT count(*) FROM shipped WHERE order_id = 814 AND cents = 1200"))
          .isOne();
      assertThat(
              db.count(
                  "SELECT count(*) FROM once_outbox WHERE event_type = 'OrderPaid'"
                      + " AND convert_from(payload, 'UTF8') = '{\"orderId\":814,\"cents\":1200}'"))
          .as("the type defaults to the record's name; the payload is JSON")
          .isOne();
    }
  }

  @Test
  void theContentTypeIsRecordedInAHeader() {
    Event event =
        Event.builder()
            .id(EventId.of("order-paid", 1))
            .destination("orders")
            .payload(new OrderPaid(1, 2))
            .build();
    assertThat(event.headers()).containsEntry(PayloadCodec.CONTENT_TYPE_HEADER, "application/json");
    assertThat(event.type()).isEqualTo("OrderPaid");
    assertThat(event.payloadText()).isEqualTo("{\"orderId\":1,\"cents\":2}");
  }

  @Test
  void aPayloadThatIsNotTheTypeIsADeadLetterAtItsFirstDeliveryAndItsValueIsNotInTheError() {
    String secret = "card-4242-4242";
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
        Once once = once(db, transport)) {
      db.execute("CREATE TABLE shipped (order_id bigint)");
      once.useTransaction(
          tx -> {
            tx.publish(Event.of(EventId.of("bad", 1), "orders", "1", "OrderPaid", secret));
            tx.publish(
                Event.builder()
                    .id(EventId.of("good", 2))
                    .destination("orders")
                    .key(2)
                    .payload(new OrderPaid(2, 5))
                    .build());
          });
      Consumer consumer =
          once.consumer("warehouse")
              .subscribe(
                  "orders",
                  OrderPaid.class,
                  (tx, paid, event) -> tx.update("INSERT INTO shipped VALUES (?)", paid.orderId()))
              .retry(
                  RetryPolicy.builder()
                      .maxAttempts(5)
                      .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
                      .build())
              .batchSize(1)
              .build();
      drain(once, consumer, db, "SELECT count(*) FROM once_dead_letter", 1);

      List<DeadLetter> dead = once.deadLetters().list(DeadLetterFilter.open());
      assertThat(dead).hasSize(1);
      DeadLetter d = dead.get(0);
      assertThat(d.event().id()).isEqualTo(EventId.of("bad", 1));
      assertThat(d.attempts()).as("retrying cannot fix the same bytes").isOne();
      assertThat(d.errorClass()).isEqualTo("dev.once.PayloadDecodingException");
      assertThat(d.errorMessage())
          .contains("cannot be decoded as " + OrderPaid.class.getName())
          .doesNotContain(secret);
      assertThat(db.count("SELECT count(*) FROM shipped WHERE order_id = 2"))
          .as("the good event behind it is processed")
          .isOne();
    }
  }

  @Test
  void aValueTheCodecCannotEncodeFailsAtBuildNamingTheField() {
    Object selfReferencing =
        new Object() {
          public Object getSelf() {
            return this;
          }
        };
    assertThatThrownBy(
            () ->
                Event.builder()
                    .id(EventId.of("e", 1))
                    .destination("orders")
                    .type("T")
                    .payload(selfReferencing)
                    .build())
        .isInstanceOf(InvalidEventException.class)
        .hasMessageStartingWith("event.payload cannot be encoded by dev.once.jackson.JacksonCodec");
  }

  private static Once once(TestDatabase db, TableQueueTransport transport) {
    return Once.builder()
        .dataSource(db.dataSource())
        .transport(transport)
        .destinations("orders")
        .build();
  }

  private static void drain(Once once, Consumer consumer, TestDatabase db, String sql, long n) {
    Relay relay = once.newRelay();
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(10))
        .until(
            () -> {
              relay.runOnce();
              consumer.runOnce();
              return db.count(sql) >= n && db.count("SELECT count(*) FROM once_queue") == 0;
            });
  }
}
