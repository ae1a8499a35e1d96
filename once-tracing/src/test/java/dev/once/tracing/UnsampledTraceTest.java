package dev.once.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.Tracing;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A trace the sampler does not keep: its context goes on through both hops (same trace id, not
 * sampled, so a log line or a later sampler still sees it), but no publish and no delivery makes an
 * observation or a span — the cost of tracing a trace nobody keeps is writing or copying its
 * headers.
 */
class UnsampledTraceTest {
  static final int EVENTS = 10;

  @Test
  void anUnsampledTraceGoesOnThroughBothHopsWithoutAnObservationPerDelivery() {
    OtelTracing otel = new OtelTracing(Sampler.alwaysOff());
    Map<String, AtomicLong> started = startsByName(otel);
    String[] traceId = new String[1];
    List<String> arrived = twoHops(otel, otel.tracing, traceId);
    assertThat(arrived).hasSize(EVENTS);
    assertThat(arrived)
        .allSatisfy(
            tp -> {
              assertThat(tp).startsWith("00-" + traceId[0] + "-");
              int flags = Integer.parseInt(tp.substring(53), 16);
              assertThat(flags & 1).as("sampled flag of " + tp).isZero();
            });
    assertThat(otel.spans()).as("nothing sampled, nothing exported").isEmpty();
    assertThat(started).doesNotContainKey(ObservationTracing.PROCESS);
    assertThat(started).as("the request's observation only").containsOnlyKeys("POST /orders");
  }

  /**
   * The opt-out: an unsampled trace's context is not stored, so the rows of both hops carry no
   * {@code traceparent}; still no observation, no span, and no new trace on the way.
   */
  @Test
  void withoutUnsampledContextTheRowsOfBothHopsCarryNoContextAndNoTraceStarts() {
    OtelTracing otel = new OtelTracing(Sampler.alwaysOff());
    Map<String, AtomicLong> started = startsByName(otel);
    List<String> arrived = twoHops(otel, otel.tracing.withoutUnsampledContext(), new String[1]);
    assertThat(arrived).hasSize(EVENTS).containsOnlyNulls();
    assertThat(otel.spans()).as("nothing sampled, nothing exported").isEmpty();
    assertThat(started).as("the request's observation only").containsOnlyKeys("POST /orders");
  }

  /** The opt-out leaves a sampled trace as it was: its publish writes its sampled context. */
  @Test
  void withoutUnsampledContextASampledPublishStillWritesItsContext() {
    OtelTracing otel = new OtelTracing(Sampler.alwaysOn());
    Tracing tracing = otel.tracing.withoutUnsampledContext();
    Map<String, String> carrier = new java.util.HashMap<>();
    String traceId =
        otel.inRequest(
            "POST /orders",
            () -> {
              tracing
                  .publish(Event.of(EventId.of("order", 1), "orders", null, "Order", "{}"), carrier)
                  .end();
              return otel.tracer.currentSpan().context().traceId();
            });
    assertThat(carrier.get(Tracing.TRACEPARENT)).startsWith("00-" + traceId + "-");
    assertThat(Integer.parseInt(carrier.get(Tracing.TRACEPARENT).substring(53), 16) & 1)
        .as("sampled flag")
        .isOne();
    assertThat(otel.names()).contains("create orders");
  }

  /**
   * {@link #EVENTS} orders published under an unsampled request, over two hops of the table queue
   * with {@code tracing}: the {@code traceparent} each arrived with at the second hop. {@code
   * traceId[0]} is set to the request's trace id.
   */
  private static List<String> twoHops(OtelTracing otel, Tracing tracing, String[] traceId) {
    List<String> arrived = new CopyOnWriteArrayList<>();
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations("orders", "dispatch")
                .tracing(tracing)
                .build();
        Consumer warehouse =
            once.consumer("warehouse")
                .subscribe(
                    "orders",
                    (tx, e) ->
                        tx.publish(
                            e.follow("queued")
                                .destination("dispatch")
                                .type("Queued")
                                .payload("{}")
                                .build()))
                .batchSize(EVENTS)
                .batchLinger(Duration.ZERO)
                .build();
        Consumer notifier =
            once.consumer("notifier")
                .subscribe(
                    "dispatch",
                    (tx, e) -> arrived.add(e.event().headers().get(Tracing.TRACEPARENT)))
                .batchSize(EVENTS)
                .batchLinger(Duration.ZERO)
                .build()) {
      otel.inRequest(
          "POST /orders",
          () -> {
            traceId[0] = otel.tracer.currentSpan().context().traceId();
            for (int i = 0; i < EVENTS; i++) {
              long id = i;
              once.inTransaction(
                  tx ->
                      tx.publish(Event.of(EventId.of("order", id), "orders", null, "Order", "{}")));
            }
            return null;
          });
      once.newRelay().runOnce();
      warehouse.runOnce();
      once.newRelay().runOnce();
      notifier.runOnce();
    }
    return arrived;
  }

  /**
   * An unsampled request with baggage: the publish writes the request's context and its baggage as
   * the registry's propagator does, still without an observation of its own.
   */
  @Test
  void anUnsampledPublishCarriesTheRequestsBaggageWithoutAnObservation() {
    OtelTracing otel = new OtelTracing(Sampler.alwaysOff());
    Map<String, AtomicLong> started = startsByName(otel);
    Event order = Event.of(EventId.of("order", 1), "orders", null, "Order", "{}");
    Map<String, String> carrier = new java.util.HashMap<>();
    String traceId =
        otel.inRequest(
            "POST /orders",
            () -> {
              try (var tenant = otel.tracer.createBaggageInScope("tenant", "t-7")) {
                otel.tracing.publish(order, carrier).end();
              }
              return otel.tracer.currentSpan().context().traceId();
            });
    assertThat(carrier.get(Tracing.TRACEPARENT)).startsWith("00-" + traceId + "-");
    assertThat(Integer.parseInt(carrier.get(Tracing.TRACEPARENT).substring(53), 16) & 1).isZero();
    assertThat(carrier).containsEntry("baggage", "tenant=t-7");
    assertThat(started).as("the request's observation only").containsOnlyKeys("POST /orders");
  }

  /**
   * Without the propagator the hook writes the unsampled context itself, when there is no baggage.
   */
  @Test
  void withoutThePropagatorAnUnsampledPublishWritesTheTraceparentItself() {
    OtelTracing otel = new OtelTracing(Sampler.alwaysOff());
    Tracing tracing = new ObservationTracing(otel.registry, otel.tracer);
    Event order = Event.of(EventId.of("order", 1), "orders", null, "Order", "{}");
    Map<String, String> carrier = new java.util.HashMap<>();
    String[] ids =
        otel.inRequest(
            "POST /orders",
            () -> {
              tracing.publish(order, carrier).end();
              var context = otel.tracer.currentSpan().context();
              return new String[] {context.traceId(), context.spanId()};
            });
    assertThat(carrier)
        .containsOnly(Map.entry(Tracing.TRACEPARENT, "00-" + ids[0] + "-" + ids[1] + "-00"));
  }

  /** The observations started on {@code otel}'s registry from now on, by name. */
  private static Map<String, AtomicLong> startsByName(OtelTracing otel) {
    Map<String, AtomicLong> started = new ConcurrentHashMap<>();
    otel.registry
        .observationConfig()
        .observationHandler(
            new ObservationHandler<>() {
              @Override
              public void onStart(Observation.Context context) {
                started.computeIfAbsent(context.getName(), n -> new AtomicLong()).incrementAndGet();
              }

              @Override
              public boolean supportsContext(Observation.Context context) {
                return true;
              }
            });
    return started;
  }
}
