package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a trace context costs a row on PostgreSQL, counted in bytes: an event that carries a
 * well-formed {@code traceparent} makes its outbox row and its table-queue row each at most 32
 * bytes larger than the same event without one (the 26 packed bytes of the {@code trace} column and
 * their length byte, with alignment), and leaves the {@code headers} array empty. Stored in the
 * array as it was until schema version 7, the same context made each row about 84 bytes larger; the
 * test computes that figure on the server too, so it fails if the context goes back there.
 */
class TraceColumnCostTest {
  static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00";

  @Test
  void aTraceContextAddsAPackedColumnNotAnArrayElement() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport queue = TableQueueTransport.create(db.dataSource());
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(queue)
                .destinations("orders")
                .build()) {
      once.consumer("warehouse").subscribe("orders", (tx, e) -> {}).build(); // binds the queue
      Event plain = Event.of(EventId.of("order-paid", 1), "orders", "k", "T", "{}");
      Event traced =
          Event.of(EventId.of("order-paid", 2), "orders", "k", "T", "{}")
              .withHeaders(Map.of(Tracing.TRACEPARENT, TRACEPARENT));
      once.useTransaction(
          tx -> {
            tx.publish(plain);
            tx.publish(traced);
          });
      assertThat(once.newRelay().runOnce()).isEqualTo(2);

      long inArray =
          db.count(
              "SELECT pg_column_size(ARRAY['traceparent', ?]::text[])"
                  + " - pg_column_size('{}'::text[])",
              TRACEPARENT);
      assertThat(inArray).as("what the array form costs a row").isGreaterThanOrEqualTo(80);
      for (String table : new String[] {"once_outbox", "once_queue"}) {
        long cost =
            db.count(
                ("SELECT max(pg_column_size(t.*)) FILTER (WHERE event_id = ?)"
                        + " - max(pg_column_size(t.*)) FILTER (WHERE event_id = ?)"
                        + " FROM %s t")
                    .formatted(table),
                traced.id().value(),
                plain.id().value());
        assertThat(cost)
            .as("bytes a traceparent adds to a row of %s (the array form: %d)", table, inArray)
            .isBetween(16L, 32L);
        assertThat(
                db.count(
                    "SELECT count(*) FROM %s WHERE event_id = ? AND headers = '{}'"
                        .formatted(table),
                    traced.id().value()))
            .as("%s: the headers array stays empty", table)
            .isEqualTo(1);
      }
    }
  }
}
