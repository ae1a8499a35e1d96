package dev.once.micrometer;

import dev.once.Event;
import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * Counts what flows through Once. Tags are only consumer ids, destinations and outcomes — names
 * fixed by configuration — never event ids or keys, so the number of series stays bounded.
 *
 * <ul>
 *   <li>{@code once.outbox.written{destination}}: events committed to the outbox (arrivals)
 *   <li>{@code once.consumer.received{consumer}}: deliveries received
 *   <li>{@code once.consumer.outcomes{consumer,outcome}}: PROCESSED (completions), DUPLICATE,
 *       STALE, RETRY, DEAD
 *   <li>{@code once.consumer.rollbacks{consumer,sqlstate}}: batch transactions rolled back by a
 *       transient conflict (deadlock, lock wait timeout, lost connection) and run again
 *   <li>{@code once.relay.published{destination}}: events confirmed by the broker and marked sent
 *   <li>{@code once.relay.publish.failures{destination}}: publishes the broker refused
 *   <li>{@code once.relay.publish.latency}: outbox commit to marked sent, oldest row of each batch
 * </ul>
 */
public final class MicrometerListener implements OnceListener {
  private final MeterRegistry registry;
  private final Timer publishLatency;

  public MicrometerListener(MeterRegistry registry) {
    this.registry = registry;
    this.publishLatency =
        Timer.builder("once.relay.publish.latency")
            .description("Outbox commit to marked sent, oldest row of each relay batch")
            .publishPercentiles(0.5, 0.99)
            .register(registry);
  }

  private Counter counter(String name, String... tags) {
    return registry.counter(name, tags);
  }

  @Override
  public void producerCommitted(List<Event> events) {
    for (Event e : events) {
      counter("once.outbox.written", "destination", e.destination()).increment();
    }
  }

  @Override
  public void received(List<ReceivedEvent> batch) {
    if (!batch.isEmpty()) {
      counter("once.consumer.received", "consumer", batch.get(0).consumerId())
          .increment(batch.size());
    }
  }

  @Override
  public void transientRollback(List<ReceivedEvent> batch, SQLException cause) {
    if (!batch.isEmpty()) {
      String state = cause.getSQLState() == null ? "none" : cause.getSQLState();
      counter("once.consumer.rollbacks", "consumer", batch.get(0).consumerId(), "sqlstate", state)
          .increment();
    }
  }

  @Override
  public void outcome(ReceivedEvent event, Outcome outcome, Duration sinceReceived) {
    counter("once.consumer.outcomes", "consumer", event.consumerId(), "outcome", outcome.name())
        .increment();
  }

  @Override
  public void markedSent(List<Event> events, Duration oldestAge) {
    for (Event e : events) {
      counter("once.relay.published", "destination", e.destination()).increment();
    }
    publishLatency.record(oldestAge);
  }

  @Override
  public void publishFailed(Event event, String reason) {
    counter("once.relay.publish.failures", "destination", event.destination()).increment();
  }
}
