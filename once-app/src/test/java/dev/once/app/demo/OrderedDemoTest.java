package dev.once.app.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.once.app.LocalRabbit;
import dev.once.app.Main;
import dev.once.test.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code once demo --ordered}: order-status events through an ordered consumer with crashes and
 * poison; the report's out-of-order count comes from the effects and is 0, every poisoned key was
 * parked and replayed, and the check catches a run where an effect is out of order.
 */
class OrderedDemoTest {

  @Test
  void theOrderedDemoKeepsEveryOrdersStatusesInOrderThroughCrashesPoisonAndReplays()
      throws Exception {
    try (TestDatabase db = TestDatabase.local()) {
      keepsOrder(db, TestDatabase.LOCAL_URL + "&currentSchema=" + db.schema());
    }
  }

  /** The same on MariaDB, whose DDL has no bigserial; skipped (one line) when it is down. */
  @Test
  void theOrderedDemoRunsOnMariaDbToo() throws Exception {
    try (TestDatabase db = TestDatabase.mariadb()) {
      keepsOrder(db, "jdbc:mariadb://127.0.0.1:3306/" + db.schema() + "?user=root");
    }
  }

  /**
   * The same through RabbitMQ: the group's single-active-consumer queue feeds the key lane in
   * Once's database; skipped (one line) when the broker is down, outside CI.
   */
  @Test
  void theOrderedDemoRunsThroughRabbitMqToo() throws Exception {
    try (LocalRabbit rabbit = LocalRabbit.vhost("ordered-demo");
        TestDatabase db = TestDatabase.local()) {
      keepsOrder(
          db,
          TestDatabase.LOCAL_URL + "&currentSchema=" + db.schema(),
          "--transport",
          "rabbitmq",
          "--amqp",
          rabbit.uri());
    }
  }

  /**
   * Through Kafka (an in-process broker the demo starts: the key is the record's key, one partition
   * keeps it) and SQS FIFO (ElasticMQ in the JVM: the key is the message group), 100 orders each:
   * these runs show the transport keeps the key's order through the same crashes and replays, the
   * checks being the same.
   */
  @Test
  void theOrderedDemoRunsThroughKafkaAndSqsFifoToo() throws Exception {
    for (String transport : List.of("kafka", "sqs-fifo")) {
      try (TestDatabase db = TestDatabase.local()) {
        keepsOrder(
            db,
            TestDatabase.LOCAL_URL + "&currentSchema=" + db.schema(),
            100,
            "--transport",
            transport);
      }
    }
  }

  private static void keepsOrder(TestDatabase db, String url, String... transport)
      throws Exception {
    keepsOrder(db, url, 300, transport);
  }

  private static void keepsOrder(TestDatabase db, String url, int orders, String... transport)
      throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "demo",
                "--ordered",
                "--events",
                String.valueOf(orders),
                "--crash-rate",
                "0.1",
                "--poison-rate",
                "0.05",
                "--seed",
                "3",
                "--json",
                "--db",
                url,
                "--schema",
                db.schema()));
    args.addAll(List.of(transport));
    Run r = run(args.toArray(String[]::new));
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    System.out.println("once demo --ordered: " + json);
    assertThat(json.get("ok").asBoolean()).isTrue();
    assertThat(json.get("events").asLong()).isEqualTo(orders * 5L);
    assertThat(json.get("effects").asLong()).isEqualTo(orders * 5L);
    assertThat(json.get("out_of_order").asLong()).isZero();
    assertThat(json.get("poisoned_orders").asLong()).isPositive();
    // every poisoned key, and any whose event crashed on each of its three attempts
    assertThat(json.get("keys_parked").asLong())
        .isGreaterThanOrEqualTo(json.get("poisoned_orders").asLong());
    assertThat(json.get("keys_replayed").asLong()).isEqualTo(json.get("keys_parked").asLong());
    assertThat(json.get("crashes").asLong()).as("crashes were injected").isPositive();
    assertThat(json.get("parked_left").asLong()).isZero();

    // its rows are the demo's: `once demo` runs after it in the same namespace, not refused
    assertThat(dev.once.scenario.ForeignData.find(db.dataSource()).describe())
        .as("rows once demo would take for someone else's")
        .isEmpty();

    // the check itself: one effect moved out of order is counted
    db.execute("UPDATE demo_order_status SET step = 9 WHERE n = " + db.count(FIRST_EFFECT));
    assertThat(db.count(OrderedDemo.OUT_OF_ORDER)).isEqualTo(2);
  }

  private static final String FIRST_EFFECT = "SELECT min(n) FROM demo_order_status";

  record Run(int exit, String out, String err) {}

  static synchronized Run run(String... args) {
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      int exit = Main.run(args);
      return new Run(
          exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
  }
}
