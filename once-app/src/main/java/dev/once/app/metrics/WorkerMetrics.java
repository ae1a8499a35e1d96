package dev.once.app.metrics;

import dev.once.OnceListener;
import dev.once.WorkloadStatus;
import dev.once.micrometer.BrokerDeadLetterGauges;
import dev.once.micrometer.MicrometerListener;
import dev.once.micrometer.WorkloadGauges;
import dev.once.spi.Transport;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Everything a process needs for {@code /metrics}: a Prometheus registry, the listener to give to
 * {@code Once.builder().listener(...)}, the database gauges, the broker's own dead letters where it
 * keeps them, and the HTTP server.
 *
 * <pre>{@code
 * try (WorkerMetrics metrics = WorkerMetrics.start(9464, dataSource)) {
 *   Once once = Once.builder()...listener(metrics.listener()).build();
 *   ...
 * }
 * }</pre>
 */
public final class WorkerMetrics implements AutoCloseable {
  private final PrometheusMeterRegistry registry;
  private final MicrometerListener listener;
  private final WorkloadGauges gauges;
  private final MetricsServer server;
  private BrokerDeadLetterGauges brokerGauges;

  private WorkerMetrics(
      PrometheusMeterRegistry registry, WorkloadGauges gauges, MetricsServer server) {
    this.registry = registry;
    this.listener = new MicrometerListener(registry);
    this.gauges = gauges;
    this.server = server;
  }

  /**
   * Serves {@code /metrics} on 127.0.0.1:{@code port}; the gauges are read from the database every
   * 5 s.
   */
  public static WorkerMetrics start(int port, DataSource dataSource) {
    return start(MetricsServer.LOOPBACK, port, dataSource);
  }

  /** Serves {@code /metrics} on {@code bind}:{@code port}. */
  public static WorkerMetrics start(String bind, int port, DataSource dataSource) {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    WorkloadGauges gauges =
        WorkloadGauges.bind(registry, () -> WorkloadStatus.read(dataSource), Duration.ofSeconds(5));
    try {
      return new WorkerMetrics(registry, gauges, MetricsServer.start(bind, port, registry));
    } catch (RuntimeException e) {
      gauges.close();
      throw e;
    }
  }

  /**
   * Adds {@code once.broker.dead.letters{consumer}} for each consumer group of {@code groups}
   * (consumer group → destination) whose broker dead-letters messages on its own (RabbitMQ); none
   * for the table queue or Kafka. Read from the broker every 5 s in the background, never by a
   * scrape (which would wait as long as an unreachable broker does), with its age.
   */
  public synchronized WorkerMetrics brokerDeadLetters(
      Transport transport, Map<String, String> groups) {
    if (brokerGauges != null) {
      throw new IllegalStateException("broker dead-letter gauges are bound already");
    }
    brokerGauges = BrokerDeadLetterGauges.bind(registry, transport, groups);
    return this;
  }

  public OnceListener listener() {
    return listener;
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  public int port() {
    return server.port();
  }

  @Override
  public synchronized void close() {
    server.close();
    gauges.close();
    if (brokerGauges != null) {
      brokerGauges.close();
    }
    registry.close();
  }
}
