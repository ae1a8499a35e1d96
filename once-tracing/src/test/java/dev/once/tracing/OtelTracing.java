package dev.once.tracing;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.baggage.propagation.W3CBaggagePropagator;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.util.List;
import java.util.function.Supplier;

/**
 * What Spring Boot wires for an application that traces with OpenTelemetry: an {@link
 * ObservationRegistry} whose handlers make OpenTelemetry spans through Micrometer Tracing's bridge
 * and propagate W3C trace context and baggage; the spans go to an in-memory exporter.
 */
final class OtelTracing {
  final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  final ObservationRegistry registry = ObservationRegistry.create();
  final OtelTracer tracer;
  final ObservationTracing tracing;

  OtelTracing() {
    this(Sampler.alwaysOn());
  }

  OtelTracing(Sampler sampler) {
    SdkTracerProvider provider =
        SdkTracerProvider.builder()
            .setSampler(Sampler.parentBased(sampler))
            .addSpanProcessor(SimpleSpanProcessor.create(exporter))
            .build();
    io.opentelemetry.api.trace.Tracer otel = provider.get("once-test");
    OtelCurrentTraceContext current = new OtelCurrentTraceContext();
    tracer =
        new OtelTracer(
            otel, current, event -> {}, new OtelBaggageManager(current, List.of(), List.of()));
    ContextPropagators propagators =
        ContextPropagators.create(
            TextMapPropagator.composite(
                W3CTraceContextPropagator.getInstance(), W3CBaggagePropagator.getInstance()));
    OtelPropagator propagator = new OtelPropagator(propagators, otel);
    registry
        .observationConfig()
        .observationHandler(
            new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
    tracing = new ObservationTracing(registry, tracer, propagator);
  }

  /** Runs {@code work} in a server span, as an HTTP request's would be. */
  <T> T inRequest(String name, Supplier<T> work) {
    return Observation.createNotStarted(name, registry).contextualName(name).observe(work);
  }

  List<SpanData> spans() {
    return exporter.getFinishedSpanItems();
  }

  SpanData span(String name) {
    return spans().stream()
        .filter(s -> s.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no span " + name + " in " + names()));
  }

  List<SpanData> all(String name) {
    return spans().stream().filter(s -> s.getName().equals(name)).toList();
  }

  List<String> names() {
    return spans().stream().map(SpanData::getName).toList();
  }
}
