package dev.once.example.warehouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.exporter.logging.LoggingSpanExporter;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The service traced as an application traces with OpenTelemetry (Micrometer Tracing's bridge over
 * the OpenTelemetry SDK, every trace sampled, spans to a logging exporter and to memory): {@code
 * POST /orders} → the publish of OrderPaid in the request's transaction → the relay's send (its own
 * trace, linked to the publish) → the warehouse's process span → the publish of DispatchQueued in
 * the handler → the order-status handler's process span, whose effect is the order's status. One
 * trace id from the HTTP span to the last handler. Once's starter wires its tracing from the
 * application's ObservationRegistry and Tracer with no code of the application. This class adds
 * beans, so it runs in a second application context of its own.
 */
@Import(TracingTest.Otel.class)
class TracingTest extends WarehouseTest {
  private static final AttributeKey<String> MESSAGE_ID =
      AttributeKey.stringKey("messaging.message.id");
  private static final AttributeKey<String> GROUP =
      AttributeKey.stringKey("messaging.consumer.group.name");
  private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("once.outcome");

  @LocalServerPort int port;
  @Autowired InMemorySpanExporter spans;

  /** What Boot's OpenTelemetry auto-configuration would give the application. */
  @TestConfiguration(proxyBeanMethods = false)
  static class Otel {
    @Bean
    InMemorySpanExporter spanExporter() {
      return InMemorySpanExporter.create();
    }

    @Bean(destroyMethod = "close")
    SdkTracerProvider tracerProvider(InMemorySpanExporter memory) {
      return SdkTracerProvider.builder()
          .setSampler(Sampler.alwaysOn())
          .addSpanProcessor(SimpleSpanProcessor.create(memory))
          .addSpanProcessor(SimpleSpanProcessor.create(LoggingSpanExporter.create()))
          .build();
    }

    @Bean
    OtelTracer tracer(SdkTracerProvider provider) {
      OtelCurrentTraceContext current = new OtelCurrentTraceContext();
      return new OtelTracer(
          provider.get("warehouse"),
          current,
          event -> {},
          new OtelBaggageManager(current, List.of(), List.of()));
    }

    @Bean
    ObservationHandler<Observation.Context> tracingHandler(
        OtelTracer tracer, SdkTracerProvider provider) {
      OtelPropagator propagator =
          new OtelPropagator(
              ContextPropagators.create(W3CTraceContextPropagator.getInstance()),
              provider.get("warehouse"));
      return new ObservationHandler.FirstMatchingCompositeObservationHandler(
          new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
          new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
          new DefaultTracingObservationHandler(tracer));
    }
  }

  @Test
  void onePostOrdersIsOneTraceFromTheHttpSpanToTheLastHandlersEffect() throws Exception {
    long orderId = 900_000 + System.nanoTime() % 90_000;
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
                    .header("Content-Type", "application/json")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"id\":" + orderId + ",\"amountCents\":1999}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(201);
    String orderPaid = "order-paid:" + orderId;

    SpanData status =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    find(
                        s ->
                            s.getName().equals("process dispatch")
                                && "order-status".equals(s.getAttributes().get(GROUP))
                                && s.getAttributes().get(MESSAGE_ID).endsWith(orderPaid)),
                Optional::isPresent)
            .orElseThrow();
    SpanData http =
        only(s -> s.getKind() == SpanKind.SERVER && s.getTraceId().equals(status.getTraceId()));
    SpanData publish = only(named("create orders", orderPaid));
    SpanData warehouse = only(named("process orders", orderPaid));
    SpanData follow = only(s -> s.getName().equals("create dispatch") && inTrace(s, http));
    SpanData send = only(named("send orders", orderPaid));

    assertThat(http.getName()).isEqualTo("http post /orders");
    assertThat(List.of(publish, warehouse, follow, status))
        .allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(http.getTraceId()));
    assertThat(publish.getParentSpanId()).isEqualTo(http.getSpanId());
    assertThat(publish.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(send.getLinks())
        .anySatisfy(l -> assertThat(l.getSpanContext().getSpanId()).isEqualTo(publish.getSpanId()));
    assertThat(warehouse.getParentSpanId()).isEqualTo(publish.getSpanId());
    assertThat(warehouse.getKind()).isEqualTo(SpanKind.CONSUMER);
    assertThat(warehouse.getAttributes().get(GROUP)).isEqualTo("warehouse");
    assertThat(warehouse.getAttributes().get(OUTCOME)).isEqualTo("PROCESSED");
    assertThat(follow.getParentSpanId()).isEqualTo(warehouse.getSpanId());
    assertThat(status.getParentSpanId()).isEqualTo(follow.getSpanId());
    assertThat(status.getAttributes().get(OUTCOME)).isEqualTo("PROCESSED");
    // the last handler's effect, committed in its process span's transaction
    assertThat(
            count(
                "SELECT count(*) FROM orders WHERE id = ? AND status = ?",
                orderId,
                "DISPATCH_QUEUED"))
        .isOne();
  }

  private Predicate<SpanData> named(String name, String eventId) {
    return s -> s.getName().equals(name) && eventId.equals(s.getAttributes().get(MESSAGE_ID));
  }

  private static boolean inTrace(SpanData s, SpanData of) {
    return s.getTraceId().equals(of.getTraceId());
  }

  private Optional<SpanData> find(Predicate<SpanData> p) {
    return spans.getFinishedSpanItems().stream().filter(p).findFirst();
  }

  private SpanData only(Predicate<SpanData> p) {
    List<SpanData> found = spans.getFinishedSpanItems().stream().filter(p).toList();
    assertThat(found).as("spans " + names()).hasSize(1);
    return found.get(0);
  }

  private List<String> names() {
    return spans.getFinishedSpanItems().stream()
        .map(s -> s.getName() + "@" + s.getTraceId().substring(0, 8))
        .toList();
  }
}
