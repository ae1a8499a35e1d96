package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.once.test.RabbitVhosts;
import dev.once.test.Services;
import dev.once.test.TestDatabase;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code once bench e2e} with tiny numbers, each run in a schema (and, for RabbitMQ, a virtual
 * host) of its own: exit 0, every figure in the JSON, no second effect. No timing is asserted.
 */
class BenchE2eCommandTest {
  private static final String[] FIELDS = {
    "e2e_eps",
    "ceiling_p_eps",
    "ceiling_c_eps",
    "ratio_c",
    "ratio_p",
    "p50_ms",
    "p99_ms",
    "paced_p99_ms",
    "once_producers_eps",
    "producer_path_ratio",
    "ceiling_c_paced_p50_ms",
    "ceiling_c_paced_p99_ms"
  };

  @Test
  void benchE2eOnTheTableQueuePrintsEveryFigureAndNoDuplicateEffect() throws Exception {
    JsonNode json = e2e("table", null, "--hops", "2");
    assertFigures(json, 2);
  }

  @Test
  void benchE2eWithOneHopCountsOneEffectPerOrder() throws Exception {
    JsonNode json = e2e("table", null, "--hops", "1");
    assertFigures(json, 1);
  }

  @Test
  void benchE2eWithServiceRunsTheExampleServiceInAJvmOfItsOwn() throws Exception {
    JsonNode json = e2e("table", null, "--hops", "1", "--service");
    assertFigures(json, 1);
    assertService(json);
    assertThat(json.get("service_ratio_e2e").asDouble()).isPositive();
    assertThat(json.get("service_ratio_c").asDouble()).isPositive();
  }

  /**
   * The service's Kafka consumers are members of their group until the service closes, and Kafka
   * refuses to move a group's offsets under its members: the run purges before they join (it purged
   * again at the end, with the members still in, and failed with UnknownMemberIdException).
   */
  @Test
  void serviceOnlyOnKafkaPurgesItsGroupBeforeItsConsumersJoin() throws Exception {
    JsonNode json = e2e("kafka", null, "--service-only");
    assertService(json);
    assertThat(json.get("transport").asText()).isEqualTo("kafka");
  }

  /**
   * On SQS the service's JVM is given the bench's endpoint (here ElasticMQ in the bench's JVM) and
   * makes its own client; before, {@code --service} refused SQS.
   */
  @Test
  void serviceOnlyOnSqsFifoReachesTheBenchsSqsServer() throws Exception {
    JsonNode json = e2e("sqs-fifo", null, "--service-only");
    assertService(json);
    assertThat(json.get("transport").asText()).isEqualTo("sqs-fifo");
  }

  /** The service's figures: every order of its warm-up, full-speed and paced runs once. */
  private static void assertService(JsonNode json) {
    for (String field :
        new String[] {"service_eps", "service_paced_p50_ms", "service_paced_p99_ms"}) {
      assertThat(json.get(field).asDouble()).as(field).isPositive();
    }
    assertThat(json.get("service_pool").asInt())
        .as("the README's pool for 4 producers, 4 workers, 2 relays x 2, LISTEN/NOTIFY")
        .isEqualTo(16);
    assertThat(json.get("service_duplicate_effects").asLong()).isZero();
    long warmup = json.get("service_warmup_orders").asLong(); // rounds of --warmup orders
    assertThat(warmup)
        .isEqualTo(json.get("warmup_events").asLong() * json.get("service_warmup_rounds").asLong());
    assertThat(json.get("service_warmup_jit_catch_up_s").asDouble()) // its pauses, reported
        .isBetween(0.0, json.get("service_warmup_s").asDouble());
    assertThat(json.get("service_effects").asLong())
        .isEqualTo(warmup + 200 + Math.round(100.0 * 1)); // --latency-rate 100, --latency-seconds 1
  }

  @Test
  void benchE2eOnRabbitmqPrintsEveryFigureAndNoDuplicateEffect() throws Exception {
    requireRabbit();
    String vhost = "once-bench-e2e-" + ProcessHandle.current().pid();
    RabbitVhosts.create(vhost);
    try {
      JsonNode json = e2e("rabbitmq", "amqp://guest:guest@127.0.0.1:5672/" + vhost, "--hops", "2");
      assertFigures(json, 2);
      assertThat(json.get("transport").asText()).isEqualTo("rabbitmq");
    } finally {
      RabbitVhosts.delete(vhost);
    }
  }

  @Test
  void benchE2eOnRabbitmqAndMariaDbPrintsEveryFigureAndNoDuplicateEffect() throws Exception {
    requireRabbit();
    String vhost = "once-bench-e2e-m-" + ProcessHandle.current().pid();
    RabbitVhosts.create(vhost);
    try (TestDatabase db = TestDatabase.empty("mariadb")) {
      JsonNode json =
          e2eOn(
              MariaDbCommandsTest.urlOf(db),
              "rabbitmq",
              "amqp://guest:guest@127.0.0.1:5672/" + vhost,
              "--hops",
              "2");
      assertFigures(json, 2);
      assertThat(json.get("database").asText()).startsWith("jdbc:mariadb:");
    } finally {
      RabbitVhosts.delete(vhost);
    }
  }

  @Test
  void benchE2eOnKafkaPrintsEveryFigureAndNoDuplicateEffect() throws Exception {
    // without --bootstrap: the embedded broker, in this JVM, data in .once/kafka
    JsonNode json = e2e("kafka", null, "--hops", "2");
    assertFigures(json, 2);
    assertThat(json.get("transport").asText()).isEqualTo("kafka");
  }

  @Test
  void badBenchE2eOptionsNameTheOptionAndTheValueInOneLine() {
    assertOneLine(Cli.run("bench", "e2e", "--hops", "3"), "--hops must be 1 or 2, was 3");
    assertOneLine(
        Cli.run("bench", "e2e", "--producer-batch", "0"),
        "--producer-batch must be between 1 and 10000, was 0");
    assertOneLine(
        Cli.run("bench", "e2e", "--producers", "0"), "--producers must be between 1 and 64, was 0");
    assertOneLine(
        Cli.run("bench", "e2e", "--latency-rate", "-2"),
        "--latency-rate must be 0 (a third of the sustained rate) or more, was -2.0");
    assertOneLine(
        Cli.run("bench", "e2e", "--transport", "pigeon", "--db", LocalServer.url()),
        "--transport must be 'table', 'rabbitmq', 'kafka', 'sqs' or 'sqs-fifo', was 'pigeon'");
    assertOneLine(
        Cli.run("bench", "e2e", "--warmup", "-1"),
        "--warmup must be 0 (none) or more orders, was -1");
  }

  private static void assertOneLine(Cli.Run run, String message) {
    assertThat(run.exit()).isNotZero();
    assertThat(run.errLines()).hasSize(1);
    assertThat(run.errLines().get(0)).contains(message);
  }

  private static void assertFigures(JsonNode json, int hops) {
    for (String field : FIELDS) {
      assertThat(json.get(field)).as(field).isNotNull();
      assertThat(json.get(field).asDouble()).as(field).isPositive();
    }
    assertThat(json.get("ceiling_c_void").isBoolean()).as("ceiling_c_void").isTrue();
    assertThat(json.get("duplicate_effects").asLong()).isZero();
    assertThat(json.get("ceiling_c_duplicate_effects").asLong()).isZero();
    assertThat(json.get("hops").asInt()).isEqualTo(hops);
    assertThat(json.get("producer_batch").asInt()).isEqualTo(1);
    long orders = 200 + json.get("paced_events").asLong();
    assertThat(json.get("effects").asLong()).isEqualTo(orders * hops);
  }

  /** Runs {@code once bench e2e} with 200 orders in a fresh schema, then drops it. */
  private static JsonNode e2e(String transport, String amqp, String... more) throws Exception {
    try (BenchSchema schema = new BenchSchema()) {
      return e2eOn(schema.url(), transport, amqp, more);
    }
  }

  /** Runs {@code once bench e2e} with 200 orders on the database at {@code url}. */
  private static JsonNode e2eOn(String url, String transport, String amqp, String... more)
      throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "bench",
                "e2e",
                "--events",
                "200",
                "--workers",
                "2",
                "--latency-producers",
                "4",
                "--latency-seconds",
                "1",
                "--latency-rate",
                "100",
                "--transport",
                transport,
                "--json",
                "--db",
                url));
    if (amqp != null) {
      args.addAll(List.of("--amqp", amqp));
    }
    args.addAll(List.of(more));
    DemoCommandTest.Run r = DemoCommandTest.run(args.toArray(String[]::new));
    assertThat(r.exit()).as(r.err()).isZero();
    return new ObjectMapper().readTree(r.out());
  }

  static void requireRabbit() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", 5672), 1_000);
    } catch (IOException e) {
      Services.unavailable(
          "RabbitMQ",
          "127.0.0.1:5672",
          e,
          "rabbitmq-server -detached && rabbitmqctl await_startup");
    }
  }
}
