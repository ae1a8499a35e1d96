package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/**
 * {@code once bench tracing} with tiny numbers in a schema of its own: exit 0, each mode's figures
 * and each run's in the JSON, spans only where traces are kept, no second effect. No timing is
 * asserted.
 */
class BenchTracingCommandTest {
  @Test
  void benchTracingRunsEveryModeOnceARoundAndReportsWhatEachCost() throws Exception {
    JsonNode json;
    try (BenchSchema schema = new BenchSchema()) {
      DemoCommandTest.Run r =
          DemoCommandTest.run(
              "bench",
              "tracing",
              "--modes",
              "off,on",
              "--rounds",
              "2",
              "--events",
              "100",
              "--warmup",
              "0",
              "--workers",
              "2",
              "--latency-producers",
              "2",
              "--paced-rate",
              "50",
              "--paced-seconds",
              "1",
              "--json",
              "--db",
              schema.url());
      assertThat(r.exit()).as(r.err()).isZero();
      json = new ObjectMapper().readTree(r.out());
    }
    assertThat(json.get("runs")).hasSize(4);
    assertThat(json.get("runs").get(0).get("tracing").asText()).isEqualTo("off");
    assertThat(json.get("runs").get(2).get("tracing").asText())
        .as("the second round starts one mode later")
        .isEqualTo("on");
    for (String mode : new String[] {"off", "on"}) {
      for (String figure :
          new String[] {
            "ratio_off_median", "eps_median", "cpu_us_per_order_median",
            "wal_bytes_per_order_median", "consumer_tx_per_order_median", "paced_p99_ms_median"
          }) {
        assertThat(json.get(mode + "_" + figure)).as(mode + "_" + figure).isNotNull();
        assertThat(json.get(mode + "_" + figure).asDouble()).as(mode + "_" + figure).isPositive();
      }
    }
    assertThat(json.get("on_slower_than_off_rounds").asLong()).isBetween(0L, 2L);
    assertThat(json.get("off_spans_exported").asLong()).isZero();
    assertThat(json.get("on_spans_exported").asLong()).isPositive();
    assertThat(json.get("duplicate_effects").asLong()).isZero();
  }

  @Test
  void badBenchTracingOptionsNameTheOptionAndTheValueInOneLine() {
    Cli.run("bench", "tracing", "--modes", "off,loud")
        .assertRefusedInOneLine(
            "--modes must be a comma-separated list of [off, request-only, sampled-out, sampled, on,"
                + " sampled-out-no-context], had 'loud'");
    Cli.run("bench", "tracing", "--rounds", "0")
        .assertRefusedInOneLine("--rounds must be between 1 and 100, was 0");
    Cli.run("bench", "tracing", "--paced-rate", "0")
        .assertRefusedInOneLine("--paced-rate must be more than 0 orders/s, was 0.0");
  }
}
