package dev.once.app.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.scenario.ProviderCounts;
import dev.once.scenario.WarehouseVerdict;
import dev.once.testkit.CrashPoint;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The demo's time line says what the time is made of (the faults injected) and where Once's speed
 * is measured, instead of an orders/s figure a newcomer takes for it.
 */
class DemoReportTest {
  private static final DemoSettings SETTINGS =
      new DemoSettings(1000, 7, 0.1, 0.05, 0, 4, Duration.ofSeconds(300));

  @Test
  void theTimeLineNamesTheInjectedFaultsAndPointsAtTheBenchNotAnOrdersPerSecondFigure() {
    DemoReport report =
        report(
            Map.of(
                CrashPoint.CONSUMER_BEFORE_TRANSACTION,
                300L,
                CrashPoint.CONSUMER_AFTER_MARKER,
                109L),
            new ProviderCounts(1000, 0, 0, 1000, 0, 0, 100, 43),
            30,
            52);

    String line = report.timeLine(409);

    assertThat(line)
        .contains("33.2 s end to end, 4 workers per consumer")
        .contains("409 crashes injected, 143 provider faults (answers lost, 503s)")
        .contains("30 extra copies, 52 retries")
        .contains("not of Once's speed: once bench measures throughput")
        .doesNotContain("orders/s");
  }

  @Test
  void withoutFaultsTheTimeLineSaysSoAndStillPointsAtTheBench() {
    DemoReport report = report(Map.of(), new ProviderCounts(1000, 0, 0, 1000, 0, 0, 0, 0), 0, 0);

    assertThat(report.timeLine(0))
        .endsWith(
            "33.2 s end to end, 4 workers per consumer; no faults injected. Once's"
                + " throughput: once bench")
        .doesNotContain("orders/s");
  }

  private static DemoReport report(
      Map<CrashPoint, Long> crashes, ProviderCounts provider, long copies, long retries) {
    WarehouseVerdict.Counts counts =
        new WarehouseVerdict.Counts(
            1000, 0, 0, 0, 0, 0, 1000, 1000, 0, 0, 1000, 1000, 0, 0, 0, 0, 0);
    WarehouseVerdict verdict = new WarehouseVerdict(1000, counts, provider, List.of(), 0);
    return new DemoReport(
        SETTINGS, verdict, crashes, 0, retries, copies, Duration.ofMillis(33_200), true, null);
  }
}
