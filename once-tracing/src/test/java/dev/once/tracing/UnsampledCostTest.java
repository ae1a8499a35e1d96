package dev.once.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Event;
import dev.once.EventId;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.Tracing;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What Once's tracing hooks cost a trace the sampler does not keep, counted in bytes allocated on
 * the calling thread — not timed. One event over two hops, as the engine calls the hooks: the
 * publish under the application's unsampled request span, then on each hop the relay's send and the
 * delivery's process span, with the handler's publish of the next event inside it. The request's
 * own observation is the application's and is opened outside the count.
 *
 * <p>Anything that makes this path do real work again — an observation or a span per event, a
 * header parsed into strings, a map of baggage built per event — allocates, and is caught.
 */
class UnsampledCostTest {
  static final int EVENTS = 20_000;
  static final String SYSTEM = "table-queue";

  /**
   * Measured 240 bytes an event (publish 144, hops 96; HotSpot 17, compressed oops); the code
   * before this test allocated 1 352 (publish 792: a map of the current baggage and a span wrapper
   * per publish; hops 560: the traceparent parsed into strings twice per delivery and once per
   * send).
   */
  static final long MAX_BYTES_PER_EVENT = 400;

  @Test
  void anUnsampledEventCostsTheHooksFewBytesOverTwoHops() {
    OtelTracing otel = new OtelTracing(Sampler.alwaysOff());
    Tracing tracing = otel.tracing;
    Event order = Event.of(EventId.of("order", 1), "orders", "1", "Order", "{}");
    Event queued = Event.of(EventId.of("queued", 1), "dispatch", "1", "Queued", "{}");
    Map<String, String> carrier = new HashMap<>(4);
    long publishBytes =
        otel.inRequest(
            "POST /orders",
            () -> {
              publish(tracing, order, carrier, EVENTS); // warm-up
              long before = allocated();
              publish(tracing, order, carrier, EVENTS);
              return allocated() - before;
            });
    String traceparent = carrier.get(Tracing.TRACEPARENT);
    assertThat(traceparent).as("the request's context").isNotNull();
    assertThat(Integer.parseInt(traceparent.substring(53), 16) & 1).as("sampled flag").isZero();
    Event sentOrder = order.withHeaders(Map.of(Tracing.TRACEPARENT, traceparent));
    Event sentQueued = queued.withHeaders(Map.of(Tracing.TRACEPARENT, traceparent));
    Hops hops = new Hops(tracing, sentOrder, sentQueued, queued, carrier);
    hops.run(EVENTS); // warm-up
    long before = allocated();
    hops.run(EVENTS);
    long hopBytes = allocated() - before;

    assertThat(carrier)
        .as("the handler's publish carries the delivery's context on")
        .containsEntry(Tracing.TRACEPARENT, traceparent);
    assertThat(otel.spans()).as("nothing sampled, nothing exported").isEmpty();
    long perEvent = (publishBytes + hopBytes) / EVENTS;
    assertThat(perEvent)
        .as(
            "bytes allocated per unsampled event over two hops (publish %d, hops %d)",
            publishBytes / EVENTS, hopBytes / EVENTS)
        .isLessThanOrEqualTo(MAX_BYTES_PER_EVENT);
  }

  private static void publish(
      Tracing tracing, Event event, Map<String, String> carrier, int times) {
    for (int i = 0; i < times; i++) {
      carrier.clear();
      tracing.publish(event, carrier).end();
    }
  }

  /** The hooks of two hops, as the relay and the consumers call them. */
  private record Hops(
      Tracing tracing, Event sentOrder, Event sentQueued, Event next, Map<String, String> carrier) {
    void run(int times) {
      ReceivedEvent order = new ReceivedEvent("warehouse", sentOrder, 1, false);
      ReceivedEvent queued = new ReceivedEvent("notifier", sentQueued, 1, false);
      for (int i = 0; i < times; i++) {
        tracing.send(SYSTEM, sentOrder).end();
        process(order, true);
        tracing.send(SYSTEM, sentQueued).end();
        process(queued, false);
      }
    }

    private void process(ReceivedEvent event, boolean publishes) {
      Tracing.Span span = tracing.process(SYSTEM, event);
      try (Tracing.Scope scope = span.open()) {
        if (publishes) {
          carrier.clear();
          tracing.publish(next, carrier).end();
        }
      }
      span.outcome(Outcome.PROCESSED);
      span.end();
    }
  }

  private static long allocated() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
        .getCurrentThreadAllocatedBytes();
  }
}
