package dev.once.app.ops;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import dev.once.app.LocalRabbit;
import dev.once.app.ops.DeadLettersCommandTest.Run;
import dev.once.test.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What RabbitMQ dead-letters on its own, as an operator meets it: counted by {@code once status},
 * looked at by {@code once dead-letters list --broker} (ids, reasons, payload size and hash, never
 * a value), and moved by {@code once dead-letters move} into Once's dead letters, once. A schema
 * and a virtual host of each test's own.
 */
class BrokerDeadLettersCommandTest {
  private static final String SECRET = "4111 1111 1111 1111";
  private static int schemas;
  private String schema;
  private String url;
  private LocalRabbit rabbit;

  @BeforeEach
  void freshSchemaAndVhost() throws Exception {
    rabbit = LocalRabbit.vhost("cli-dlq");
    schema = "cli_bdl_" + ProcessHandle.current().pid() + "_" + (++schemas);
    exec(TestDatabase.embeddedUrl(), "CREATE SCHEMA " + schema);
    url = TestDatabase.embeddedUrl() + "&currentSchema=" + schema;
    assertThat(run("schema", "apply", "--db", url, "--schema", schema).exit()).isZero();
    // Given: the user's own consumers, warehouse on orders and billing (whose queue is on no
    // broker here), recorded by their markers and the outbox rows of their destinations
    exec(url, "INSERT INTO once_inbox (consumer_id, event_id) VALUES ('warehouse', 'e1')");
    exec(url, "INSERT INTO once_inbox (consumer_id, event_id) VALUES ('billing', 'i1')");
    exec(
        url,
        "INSERT INTO once_outbox (event_id, destination, event_type, payload, key_partition,"
            + " sent_at) VALUES ('o1', 'orders', 'OrderPaid', '\\x7b7d', 0, now()),"
            + " ('i2', 'invoices', 'Invoice', '\\x7b7d', 0, now())");
    // Given: a careless consumer rejected a Once-like event and a foreign message without an id
    rabbit.rejectIntoDeadLetterQueue(
        "orders", "warehouse", props("order-paid:7"), "{\"card\":\"" + SECRET + "\"}");
    rabbit.rejectIntoDeadLetterQueue("orders", "warehouse", props(null), SECRET);
  }

  @AfterEach
  void drop() throws SQLException {
    if (rabbit != null) {
      rabbit.close();
    }
    if (schema != null) {
      exec(TestDatabase.embeddedUrl(), "DROP SCHEMA " + schema + " CASCADE");
    }
  }

  @Test
  void statusCountsTheBrokersDeadLettersOfTheGroupsThatExistWithRabbitmqOnly() throws Exception {
    Run table = run("status", "--db", url, "--schema", schema);
    assertThat(table.exit()).as(table.err()).isZero();
    assertThat(table.out()).doesNotContain("broker");
    assertThat(run("status", "--db", url, "--schema", schema, "--json").out())
        .doesNotContain("broker_dead_letters");

    Run text =
        run(
            "status",
            "--db",
            url,
            "--schema",
            schema,
            "--transport",
            "rabbitmq",
            "--amqp",
            rabbit.uri());
    assertThat(text.exit()).as(text.err()).isZero();
    assertThat(text.out()).containsPattern("broker +warehouse \\(orders\\) +2\\n");
    assertThat(text.out()).doesNotContain("notifier").doesNotContain("billing");
    assertThat(text.err().strip())
        .isEqualTo(
            "once: no queue on the broker for billing under the destinations the Once tables"
                + " record (invoices, orders): name them with --group DESTINATION:GROUP");

    Run json =
        run(
            "status",
            "--db",
            url,
            "--schema",
            schema,
            "--transport",
            "rabbitmq",
            "--amqp",
            rabbit.uri(),
            "--json");
    assertThat(json.exit()).as(json.err()).isZero();
    JsonNode broker = new ObjectMapper().readTree(json.out()).get("broker_dead_letters");
    assertThat(broker.toString())
        .isEqualTo("[{\"consumer\":\"warehouse\",\"destination\":\"orders\",\"waiting\":2}]");

    Run other =
        run(
            "status",
            "--db",
            url,
            "--schema",
            schema,
            "--transport",
            "rabbitmq",
            "--amqp",
            rabbit.uri(),
            "--group",
            "orders:billing",
            "--group",
            "orders:warehouse");
    assertThat(other.out())
        .containsPattern("broker +warehouse \\(orders\\) +2\\n")
        .doesNotContain("billing");
    assertThat(other.err()).contains("--group orders:billing: no such queue on the broker");
  }

  @Test
  void listBrokerShowsIdsReasonsAndPayloadSizesNeverValuesAndLeavesTheMessages() throws Exception {
    Run list =
        run(
            "dead-letters",
            "list",
            "--broker",
            "--db",
            url,
            "--schema",
            schema,
            "--transport",
            "rabbitmq",
            "--amqp",
            rabbit.uri());
    assertThat(list.exit()).as(list.err()).isZero();
    assertThat(list.out())
        .containsPattern("warehouse +order-paid:7 +OrderPaid +rejected +1 +20\\d\\d-")
        .contains("(malformed: once-event-id missing)")
        .contains("bytes, sha256:")
        .contains("warehouse: 2 in orders.warehouse.dead-letter, 2 shown")
        .doesNotContain("notifier")
        .doesNotContain("4111");
    assertThat(rabbit.count("orders.warehouse.dead-letter")).isEqualTo(2);
    assertThat(count("SELECT count(*) FROM once_dead_letter")).isZero();

    Run table = run("dead-letters", "list", "--broker", "--db", url, "--schema", schema);
    assertThat(table.exit()).isEqualTo(2);
    assertThat(table.err()).contains("--broker needs --transport rabbitmq");
    Run filtered =
        run(
            "dead-letters",
            "list",
            "--broker",
            "--type",
            "OrderPaid",
            "--db",
            url,
            "--schema",
            schema,
            "--transport",
            "rabbitmq",
            "--amqp",
            rabbit.uri());
    assertThat(filtered.exit()).isEqualTo(2);
    assertThat(filtered.err()).contains("--type filters Once's own dead letters");
  }

  @Test
  void moveTakesThemIntoOncesDeadLettersOnceWhereReplayWorks() throws Exception {
    Run move =
        run(
            "dead-letters",
            "move",
            "--db",
            url,
            "--schema",
            schema,
            "--transport",
            "rabbitmq",
            "--amqp",
            rabbit.uri());
    assertThat(move.exit()).as(move.err()).isZero();
    assertThat(move.out())
        .contains(
            "warehouse: moved 2 into Once's dead letters (1 malformed, 0 already there); 0 left"
                + " in orders.warehouse.dead-letter")
        .doesNotContain("notifier")
        .doesNotContain("billing:");
    assertThat(rabbit.count("orders.warehouse.dead-letter")).isZero();
    Run list = run("dead-letters", "list", "--db", url, "--schema", schema);
    assertThat(list.out())
        .containsPattern("warehouse +order-paid:7 .* BrokerDeadLettered")
        .containsPattern("warehouse +malformed:\\w+ .* MalformedMessage")
        .contains("2 dead letters")
        .doesNotContain("4111");

    // When: the same message is dead-lettered again (a move that died after its commit, before
    // its ack, leaves exactly this) and moved again
    redeadLetter("order-paid:7");
    Run again =
        run(
            "dead-letters",
            "move",
            "--db",
            url,
            "--schema",
            schema,
            "--transport",
            "rabbitmq",
            "--amqp",
            rabbit.uri());
    // Then: it is taken off the broker and no second dead letter is written
    assertThat(again.out())
        .contains(
            "warehouse: moved 0 into Once's dead letters (0 malformed, 1 already there); 0 left");
    assertThat(count("SELECT count(*) FROM once_dead_letter")).isEqualTo(2);

    // And: replay sends it back to the warehouse group's queue
    Run replay =
        run(
            "dead-letters",
            "replay",
            "--event",
            "order-paid:7",
            "--db",
            url,
            "--schema",
            schema,
            "--transport",
            "rabbitmq",
            "--amqp",
            rabbit.uri());
    assertThat(replay.exit()).as(replay.err()).isZero();
    assertThat(rabbit.count("orders.warehouse")).isEqualTo(1);
  }

  /** The message as RabbitMQ dead-letters it: to its dead-letter exchange, keyed by the queue. */
  private void redeadLetter(String id) throws Exception {
    try (com.rabbitmq.client.Connection c = rabbit.connection();
        Channel ch = c.createChannel()) {
      ch.basicPublish(
          "once.dead-letter",
          "orders.warehouse",
          props(id),
          ("{\"card\":\"" + SECRET + "\"}").getBytes(StandardCharsets.UTF_8));
      long deadline = System.currentTimeMillis() + 10_000;
      while (ch.messageCount("orders.warehouse.dead-letter") < 1
          && System.currentTimeMillis() < deadline) {
        Thread.sleep(20);
      }
    }
  }

  private static AMQP.BasicProperties props(String id) {
    return new AMQP.BasicProperties.Builder().messageId(id).type("OrderPaid").build();
  }

  private long count(String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void exec(String jdbcUrl, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static Run run(String... args) {
    return DeadLettersCommandTest.run(args);
  }
}
