package dev.once.micrometer;

import dev.once.spi.BrokerDeadLetters;
import dev.once.spi.Transport;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code once.broker.dead.letters{consumer}}: messages the broker dead-lettered on its own for a
 * consumer group (RabbitMQ: its {@code <queue>.dead-letter} queue, fed by the delivery limit and by
 * rejects), read from the transport at each scrape. Those are outside Once's dead letters (and
 * {@code once.dead.letters}); a value above 0 means messages that Once never saw fail. Not
 * registered for a transport that has no such place.
 */
public final class BrokerDeadLetterGauges {
  private static final Logger log = LoggerFactory.getLogger(BrokerDeadLetterGauges.class);

  private BrokerDeadLetterGauges() {}

  /**
   * One gauge per consumer group of {@code groups} (consumer group → destination) whose broker
   * keeps dead letters of its own.
   */
  public static void bind(MeterRegistry registry, Transport transport, Map<String, String> groups) {
    groups.forEach(
        (group, destination) -> {
          if (count(transport, destination, group).isPresent()) {
            Gauge.builder(
                    "once.broker.dead.letters",
                    () -> count(transport, destination, group).orElse(0))
                .tag("consumer", group)
                .description("messages the broker dead-lettered itself, outside Once")
                .register(registry);
          }
        });
  }

  private static OptionalLong count(Transport transport, String destination, String group) {
    try {
      return transport
          .capability(BrokerDeadLetters.class)
          .map(b -> OptionalLong.of(b.count(destination, group)))
          .orElse(OptionalLong.empty());
    } catch (RuntimeException e) {
      log.debug("broker dead letters of {} not read: {}", group, e.toString());
      return OptionalLong.of(0);
    }
  }
}
