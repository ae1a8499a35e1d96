package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.once.test.RabbitVhosts;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code once bench faults} with tiny numbers, each run in a schema (and, for RabbitMQ, a virtual
 * host) of its own: every phase drains every order once, crashes and cuts really happen, and the
 * ratios are there. No timing is asserted.
 */
class BenchFaultsCommandTest {
  private static final int ORDERS = 200;

  /**
   * RabbitMQ's cuts phase must meet a cut: on a quiet machine the pipeline drained 200 orders
   * before the first one (fresh-clone CI, session 7); 1 000 last several intervals.
   */
  private static final int CUT_ORDERS = 1000;

  @Test
  void benchFaultsOnTheTableQueueCrashesAndStillDrainsEveryOrderOnce() throws Exception {
    JsonNode json = faults("table", null, "--crash-rates", "0,0.2");
    assertPhases(json, "none", "crash_0.2");
    assertThat(phase(json, "crash_0.2").get("crashes").asLong()).isPositive();
    assertThat(phase(json, "none").get("crashes").asLong()).isZero();
    assertThat(json.get("faults_ratio").get("crash_0.2").asDouble()).isPositive();
    assertThat(json.has("out_of_order")).as("an unordered run checks no key order").isFalse();
  }

  @Test
  void benchFaultsOnRabbitmqCutsEveryConnectionAndStillDrainsEveryOrderOnce() throws Exception {
    BenchE2eCommandTest.requireRabbit();
    String vhost = "once-bench-faults-" + ProcessHandle.current().pid();
    RabbitVhosts.create(vhost);
    try {
      JsonNode json =
          faults(
              "rabbitmq",
              "amqp://guest:guest@127.0.0.1:5672/" + vhost,
              CUT_ORDERS,
              "--crash-rates",
              "0,0.1",
              "--fault-interval-ms",
              // the pipeline drains the phase's orders in about a second on a quiet machine: cut
              // often enough that the phase meets cuts at all (the next cut waits until the
              // pipeline works again, so this cannot starve it)
              "300");
      assertPhases(json, CUT_ORDERS, "none", "crash_0.1", "cuts");
      assertThat(phase(json, "cuts").get("cuts").asLong()).isPositive();
      assertThat(json.get("faults_ratio").get("cuts").asDouble()).isPositive();
    } finally {
      RabbitVhosts.delete(vhost);
    }
  }

  @Test
  void benchFaultsOnKafkaRebalancesAndStillDrainsEveryOrderOnce() throws Exception {
    // without --bootstrap: the embedded broker, in this JVM, data in .once/kafka
    JsonNode json = faults("kafka", null, "--crash-rates", "0", "--fault-interval-ms", "500");
    assertPhases(json, "none", "rebalances");
  }

  @Test
  void badBenchFaultsOptionsNameTheOptionAndTheValueInOneLine() {
    assertOneLine(
        Cli.run("bench", "faults", "--fault-interval-ms", "5"),
        "--fault-interval-ms must be between 100 and 600000, was 5");
    assertOneLine(
        Cli.run("bench", "faults", "--warmup", "-1"),
        "--warmup must be 0 (none) or more orders, was -1");
    assertOneLine(
        Cli.run("bench", "faults", "--crash-rates", "0.1,0.2"),
        "--crash-rates must start with 0 (the run every ratio is taken against), was [0.1, 0.2]");
    assertOneLine(
        Cli.run("bench", "faults", "--crash-rates", "0,0.9"),
        "--crash-rates must be between 0 and 0.5, was 0.9");
    assertOneLine(
        Cli.run("bench", "faults", "--ordered", "--transport", "sqs"),
        "--ordered is refused with --transport sqs: a standard SQS queue hands a key's messages"
            + " to competing receivers in no order; use --transport sqs-fifo");
  }

  private static void assertOneLine(Cli.Run run, String message) {
    assertThat(run.exit()).isNotZero();
    assertThat(run.errLines()).hasSize(1);
    assertThat(run.errLines().get(0)).contains(message);
  }

  private static void assertPhases(JsonNode json, String... names) {
    assertPhases(json, ORDERS, names);
  }

  private static void assertPhases(JsonNode json, int orders, String... names) {
    List<String> seen = new ArrayList<>();
    json.get("phases").forEach(p -> seen.add(p.get("phase").asText()));
    assertThat(seen).containsExactly(names);
    for (JsonNode p : json.get("phases")) {
      assertThat(p.get("effects").asLong()).as(p.toString()).isEqualTo(2L * orders);
      assertThat(p.get("duplicate_effects").asLong()).as(p.toString()).isZero();
      assertThat(p.get("eps").asDouble()).as(p.toString()).isPositive();
    }
    assertThat(json.get("duplicate_effects").asLong()).isZero();
    assertThat(json.get("faults_ratio").size()).isEqualTo(names.length - 1);
  }

  private static JsonNode phase(JsonNode json, String name) {
    for (JsonNode p : json.get("phases")) {
      if (p.get("phase").asText().equals(name)) {
        return p;
      }
    }
    throw new AssertionError("no phase " + name + " in " + json);
  }

  /** Runs {@code once bench faults} with 200 orders per phase in a fresh schema, then drops it. */
  private static JsonNode faults(String transport, String amqp, String... more) throws Exception {
    return faults(transport, amqp, ORDERS, more);
  }

  private static JsonNode faults(String transport, String amqp, int orders, String... more)
      throws Exception {
    try (BenchSchema schema = new BenchSchema()) {
      List<String> args =
          new ArrayList<>(
              List.of(
                  "bench",
                  "faults",
                  "--events",
                  String.valueOf(orders),
                  "--workers",
                  "2",
                  "--warmup",
                  "0",
                  "--transport",
                  transport,
                  "--json",
                  "--db",
                  schema.url()));
      if (amqp != null) {
        args.addAll(List.of("--amqp", amqp));
      }
      args.addAll(List.of(more));
      DemoCommandTest.Run r = DemoCommandTest.run(args.toArray(String[]::new));
      assertThat(r.exit()).as(r.err()).isZero();
      return new ObjectMapper().readTree(r.out());
    }
  }
}
