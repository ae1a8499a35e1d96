package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code once bench} works with tiny numbers: exit 0 and every figure in the JSON. No timing. */
class BenchCommandTest {
  private static BenchSchema schema;

  @BeforeAll
  static void schema() throws Exception {
    schema = new BenchSchema();
  }

  @AfterAll
  static void dropSchema() throws Exception {
    if (schema != null) {
      schema.close();
    }
  }

  @Test
  void benchPrintsOnceAndItsThreeCeilingsAndTheirRatiosAsJson() throws Exception {
    DemoCommandTest.Run r =
        DemoCommandTest.run(
            "bench",
            "--events",
            "300",
            "--latency-seconds",
            "1",
            "--latency-rate",
            "200",
            "--warmup",
            "100",
            "--json",
            "--db",
            schema.url());
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    for (String field :
        new String[] {
          "once_eps",
          "ceiling_db_eps",
          "ceiling_broker_eps",
          "ceiling_c_eps",
          "ratio_db",
          "ratio_broker",
          "ratio_c"
        }) {
      assertThat(json.get(field).asDouble()).as(field).isPositive();
    }
    assertThat(json.has("p50_ms")).isTrue();
    assertThat(json.has("p99_ms")).isTrue();
    assertThat(json.get("duplicate_effects").asLong()).isZero();
    assertThat(json.get("effects").asLong()).isGreaterThanOrEqualTo(300);
    assertThat(json.get("warmup_events").asInt()).isEqualTo(100);
    assertThat(json.get("latency_rate_eps").asDouble()).isBetween(100.0, 210.0);
  }

  @Test
  void benchOnKafkaMeasuresItsOwnCeilingBAndPrintsEveryFigureAsJson() throws Exception {
    // without --bootstrap: the embedded broker, in this JVM, data in .once/kafka
    try (BenchSchema own = new BenchSchema()) {
      DemoCommandTest.Run r =
          DemoCommandTest.run(
              "bench",
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
              "kafka",
              "--json",
              "--db",
              own.url());
      assertThat(r.exit()).as(r.err()).isZero();
      JsonNode json = new ObjectMapper().readTree(r.out());
      for (String field :
          new String[] {
            "once_eps",
            "ceiling_db_eps",
            "ceiling_broker_eps",
            "ceiling_c_eps",
            "ratio_db",
            "ratio_broker",
            "ratio_c"
          }) {
        assertThat(json.get(field).asDouble()).as(field).isPositive();
      }
      assertThat(json.get("transport").asText()).isEqualTo("kafka");
      assertThat(json.get("ceiling_broker").asText()).startsWith("Kafka alone");
      assertThat(json.get("duplicate_effects").asLong()).isZero();
      assertThat(json.get("effects").asLong()).isGreaterThanOrEqualTo(200);
      assertThat(json.has("p99_ms")).isTrue();
    }
  }

  @Test
  void aBadBootstrapValueIsOneLineNamingTheOptionAndTheValue() {
    for (String bad : new String[] {"nonsense", "host:0", "host:port", ":9092", "a:9092,"}) {
      Cli.Run r =
          Cli.run("bench", "--transport", "kafka", "--bootstrap", bad, "--db", LocalServer.url());
      assertThat(r.exit()).as(bad).isNotZero();
      assertThat(r.errLines()).as(bad).hasSize(1);
      assertThat(r.errLines().get(0))
          .as(bad)
          .contains("--bootstrap must be host:port[,host:port] (port 1-65535), was '" + bad + "'");
    }
  }

  @Test
  void benchMarkersMeasuresTheConsumerWithAndWithoutEarlierMarkers() throws Exception {
    DemoCommandTest.Run r =
        DemoCommandTest.run(
            "bench",
            "markers",
            "--markers",
            "2000",
            "--events",
            "200",
            "--json",
            "--db",
            schema.url());
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("consumer_eps_0").asDouble()).isPositive();
    assertThat(json.get("consumer_eps_markers").asDouble()).isPositive();
    assertThat(json.get("inbox_rows_after").asLong() - json.get("inbox_rows_before").asLong())
        .isGreaterThanOrEqualTo(2000);
  }

  @Test
  void benchBacklogReportsTheHeapWhileABacklogDrains() throws Exception {
    DemoCommandTest.Run r =
        DemoCommandTest.run(
            "bench",
            "backlog",
            "--events",
            "500",
            "--seconds",
            "60",
            "--json",
            "--db",
            schema.url());
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    assertThat(json.get("processed").asLong()).isEqualTo(500);
    assertThat(json.get("heap_max_used_mb").asDouble()).isPositive();
  }

  @Test
  void benchParkedKeyReportsTheOtherKeysWithAndWithoutAParkedKey() throws Exception {
    DemoCommandTest.Run r =
        DemoCommandTest.run(
            "bench",
            "parked-key",
            "--events",
            "200",
            "--behind",
            "50",
            "--rounds",
            "1",
            "--latency-seconds",
            "1",
            "--json",
            "--db",
            schema.url());
    assertThat(r.exit()).as(r.err()).isZero();
    JsonNode json = new ObjectMapper().readTree(r.out());
    JsonNode clean = json.get("clean").get(0);
    JsonNode poisoned = json.get("poisoned").get(0);
    assertThat(clean.get("parked_key_waiting").asLong()).isZero();
    assertThat(poisoned.get("parked_key_waiting").asLong())
        .as("the key parked with every event behind it still waiting")
        .isEqualTo(50);
    assertThat(poisoned.get("other_keys_eps").asDouble()).isPositive();
    assertThat(poisoned.get("other_keys_p99_ms").asDouble()).isPositive();
    assertThat(json.get("p99_ratios")).hasSize(1);
    assertThat(DemoCommandTest.run("bench", "parked-key", "--events", "10", "--behind", "11").err())
        .contains("--behind must be between 1 and 10, was 11");
  }

  @Test
  void badBenchOptionsNameTheOptionAndTheValue() {
    assertThat(DemoCommandTest.run("bench", "--batch", "0").err())
        .contains("--batch must be between 1 and 64, was 0");
    assertThat(
            DemoCommandTest.run("bench", "--transport", "pigeon", "--db", LocalServer.url()).err())
        .contains(
            "--transport must be 'table', 'rabbitmq', 'kafka', 'sqs' or 'sqs-fifo', was 'pigeon'");
    assertThat(DemoCommandTest.run("bench", "--latency-rate", "-1").err())
        .contains("--latency-rate must be 0 (half the sustained rate) or more, was -1");
    assertThat(DemoCommandTest.run("bench", "--warmup", "-5").err())
        .contains("--warmup must be 0 (none) or more events, was -5");
  }
}
