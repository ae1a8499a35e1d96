package dev.once;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** Bad input fails with one clear message naming the problem, and writes nothing. */
class BadInputTest {

  @Test
  void eventIdsMustBeNonEmptyBoundedAndPrintable() {
    assertThatThrownBy(() -> new EventId(null)).hasMessage("event.id must not be null");
    assertThatThrownBy(() -> new EventId("")).hasMessage("event.id must not be empty");
    assertThatThrownBy(() -> new EventId("x".repeat(201)))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageStartingWith("event.id is 201 characters long, the limit is 200");
    assertThatThrownBy(() -> new EventId("order\n1"))
        .hasMessageContaining("control character at index 5");
    assertThatThrownBy(() -> new EventId(" order-1")).hasMessageContaining("white space");
    assertThat(EventId.of("export-completed", 814, "v1").value())
        .isEqualTo("export-completed:814:v1");
  }

  @Test
  void derivedIdsAreDeterministicAndBounded() {
    EventId incoming = EventId.of("order-paid", 7);
    assertThat(EventId.derive("warehouse", incoming, "dispatch-queued"))
        .isEqualTo(EventId.derive("warehouse", incoming, "dispatch-queued"))
        .isNotEqualTo(EventId.derive("billing", incoming, "dispatch-queued"));
    EventId longIncoming = new EventId("o".repeat(200));
    assertThat(EventId.derive("warehouse", longIncoming, "dispatch-queued").value())
        .hasSizeLessThanOrEqualTo(200);
  }

  @Test
  void anOversizedPayloadIsRefusedNamingTheEvent() {
    byte[] big = new byte[Event.MAX_PAYLOAD_BYTES + 1];
    assertThatThrownBy(() -> new Event(EventId.of("e", 1), "orders", null, "T", big, null))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining("event.payload is 1048577 bytes")
        .hasMessageContaining("e:1");
  }

  @Test
  void anUnknownDestinationIsRefusedAndTheWholeTransactionRollsBack() {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations("orders")
                .build()) {
      db.execute("CREATE TABLE business (id int)");
      assertThatThrownBy(
              () ->
                  once.inTransaction(
                      tx -> {
                        tx.update("INSERT INTO business VALUES (1)");
                        return tx.publish(Event.of(EventId.of("e", 1), "ordres", null, "T", "{}"));
                      }))
          .isInstanceOf(UnknownDestinationException.class)
          .hasMessage(
              "unknown destination 'ordres': declared destinations are [orders] (add it with"
                  + " Once.builder().destinations(...))");
      assertThat(db.count("SELECT count(*) FROM business")).isZero();
      assertThat(db.count("SELECT count(*) FROM once_outbox")).isZero();
    }
  }

  @Test
  void aDatabaseWithoutTheSchemaIsRefusedNamingTheMissingTable() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      try (Connection c = DriverManager.getConnection(TestDatabase.embeddedUrl());
          Statement s = c.createStatement()) {
        s.execute("DROP TABLE " + db.schema() + ".once_inbox");
      }
      TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
      assertThatThrownBy(
              () ->
                  Once.builder()
                      .dataSource(db.dataSource())
                      .transport(transport)
                      .destinations("orders")
                      .build())
          .isInstanceOf(SchemaMissingException.class)
          .hasMessageStartingWith("table once_inbox not found in schema '" + db.schema() + "'");
    }
  }

  @Test
  void badSettingsAreNamedWithTheirValue() {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport transport = TableQueueTransport.create(db.dataSource())) {
      OnceBuilder base = Once.builder().dataSource(db.dataSource()).transport(transport);
      try (Once consumerOnly = base.build()) {
        assertThatThrownBy(
                () ->
                    consumerOnly.useTransaction(
                        tx -> tx.publish(Event.of(EventId.of("e", 1), "orders", "1", "T", "{}"))))
            .isInstanceOf(UnknownDestinationException.class);
      }
      assertThatThrownBy(
              () ->
                  Once.builder()
                      .dataSource(db.dataSource())
                      .transport(transport)
                      .destinations("bad name")
                      .build())
          .isInstanceOf(ConfigurationException.class)
          .hasMessage(
              "destinations must be 1 to 100 letters, digits, '.', '_' or '-', was 'bad name'");
      base.destinations("orders");
      assertThatThrownBy(() -> base.relayBatchSize(0).build())
          .isInstanceOf(ConfigurationException.class)
          .hasMessage("relayBatchSize must be between 1 and 10000, was 0");
      base.relayBatchSize(100);
      assertThatThrownBy(() -> Once.builder().transport(transport).destinations("o").build())
          .hasMessage("dataSource is required");
      try (Once once = base.build()) {
        assertThatThrownBy(
                () ->
                    once.consumer("warehouse")
                        .subscribe("orders", (tx, e) -> {})
                        .batchSize(100)
                        .build())
            .hasMessage("consumer.batchSize must be between 1 and 64, was 100");
        assertThatThrownBy(
                () -> once.consumer("ware house").subscribe("orders", (tx, e) -> {}).build())
            .hasMessageContaining("consumer.id must be 1 to 100 letters");
      }
    }
  }

  @Test
  void oneConsumerIdOnTwoDestinationsIsRefusedAtBuildSoThatNoEventIsAFalseDuplicate() {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations("orders", "refunds")
                .build()) {
      once.consumer("warehouse").subscribe("orders", (tx, e) -> {}).build();
      once.consumer("warehouse").subscribe("orders", (tx, e) -> {}).build(); // the same: fine
      assertThatThrownBy(
              () -> once.consumer("warehouse").subscribe("refunds", (tx, e) -> {}).build())
          .isInstanceOf(ConfigurationException.class)
          .hasMessageStartingWith(
              "consumer.destination 'refunds' is refused for consumer 'warehouse', which"
                  + " subscribes to 'orders' already");
      once.consumer("warehouse-refunds").subscribe("refunds", (tx, e) -> {}).build();
    }
  }
}
