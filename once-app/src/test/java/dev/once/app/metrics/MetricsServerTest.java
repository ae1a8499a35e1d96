package dev.once.app.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

/** /metrics serves this machine only unless told otherwise. */
class MetricsServerTest {

  @Test
  void metricsListenOnTheLoopbackAddressByDefault() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (MetricsServer server = MetricsServer.start(0, registry)) {
      assertThat(server.address().getAddress().isLoopbackAddress()).isTrue();
    }
  }

  @Test
  void metricsListenOnEveryInterfaceOnlyWhenAskedTo() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    try (MetricsServer server = MetricsServer.start("0.0.0.0", 0, registry)) {
      assertThat(server.address().getAddress().isAnyLocalAddress()).isTrue();
    }
  }
}
