package dev.once.micrometer;

import dev.once.BrokerDeadLetterCounts;
import dev.once.spi.Transport;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;

/**
 * {@code once.broker.dead.letters{consumer}}: messages the broker dead-lettered on its own for a
 * consumer group (RabbitMQ: its {@code <queue>.dead-letter} queue, fed by the delivery limit and by
 * rejects). Those are outside Once's dead letters (and {@code once.dead.letters}); a value above 0
 * means messages that Once never saw fail. Not registered for a transport that has no such place.
 *
 * <p>The broker is asked in the background every {@code interval} ({@link BrokerDeadLetterCounts}),
 * never by a scrape: a scrape reads the last count, so {@code /metrics} answers at once while the
 * broker is unreachable or half-open. {@code once.broker.dead.letters.age{consumer}} says how old
 * that count is, in seconds: it grows while the broker does not answer (alert on it). Both are NaN
 * until the first answer.
 */
public final class BrokerDeadLetterGauges implements AutoCloseable {

  /** How often {@link #bind(MeterRegistry, Transport, Map)} asks the broker. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(5);

  private final BrokerDeadLetterCounts counts;

  private BrokerDeadLetterGauges(BrokerDeadLetterCounts counts) {
    this.counts = counts;
  }

  /** {@link #bind(MeterRegistry, Transport, Map, Duration)} every {@link #DEFAULT_INTERVAL}. */
  public static BrokerDeadLetterGauges bind(
      MeterRegistry registry, Transport transport, Map<String, String> groups) {
    return bind(registry, transport, groups, DEFAULT_INTERVAL);
  }

  /**
   * Two gauges per consumer group of {@code groups} (consumer group → destination) if the broker
   * keeps dead letters of its own, read from it now (in the background) and every {@code interval}.
   * Close to stop reading.
   */
  public static BrokerDeadLetterGauges bind(
      MeterRegistry registry, Transport transport, Map<String, String> groups, Duration interval) {
    BrokerDeadLetterCounts counts = BrokerDeadLetterCounts.start(transport, groups, interval);
    if (counts.supported()) {
      counts
          .groups()
          .keySet()
          .forEach(
              group -> {
                Gauge.builder("once.broker.dead.letters", () -> value(counts.count(group)))
                    .tag("consumer", group)
                    .description("messages the broker dead-lettered itself, outside Once")
                    .register(registry);
                Gauge.builder(
                        "once.broker.dead.letters.age",
                        () -> counts.age(group).map(a -> a.toNanos() / 1e9).orElse(Double.NaN))
                    .tag("consumer", group)
                    .baseUnit("seconds")
                    .description("how long ago once.broker.dead.letters was read from the broker")
                    .register(registry);
              });
    }
    return new BrokerDeadLetterGauges(counts);
  }

  private static double value(OptionalLong n) {
    return n.isPresent() ? n.getAsLong() : Double.NaN;
  }

  /** Reads the counts now, on the caller's thread (tests; the background reads on its own). */
  void refresh() {
    counts.refresh();
  }

  @Override
  public void close() {
    counts.close();
  }
}
