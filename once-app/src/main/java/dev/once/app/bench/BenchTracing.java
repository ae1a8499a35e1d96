package dev.once.app.bench;

import dev.once.Tracing;
import dev.once.tracing.ObservationTracing;
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
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tracing for {@code once bench e2e --tracing}: off (Once's default, {@link Tracing#NONE}), on
 * (every producer transaction in a sampled server span), or sampled (10 % of them, parent-based, as
 * a production tracer samples). Spans go through OpenTelemetry's batch processor to an exporter
 * that only counts them.
 */
final class BenchTracing implements AutoCloseable {
  static final BenchTracing OFF = new BenchTracing();

  private final ObservationRegistry registry;
  private final Tracing tracing;
  private final SdkTracerProvider provider;
  private final AtomicLong exported = new AtomicLong();
  final String mode;

  private BenchTracing() {
    this.mode = "off";
    this.registry = null;
    this.tracing = Tracing.NONE;
    this.provider = null;
  }

  private BenchTracing(String mode, double ratio) {
    this.mode = mode;
    SpanExporter counting =
        new SpanExporter() {
          @Override
          public CompletableResultCode export(Collection<SpanData> spans) {
            exported.addAndGet(spans.size());
            return CompletableResultCode.ofSuccess();
          }

          @Override
          public CompletableResultCode flush() {
            return CompletableResultCode.ofSuccess();
          }

          @Override
          public CompletableResultCode shutdown() {
            return CompletableResultCode.ofSuccess();
          }
        };
    provider =
        SdkTracerProvider.builder()
            .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(ratio)))
            .addSpanProcessor(BatchSpanProcessor.builder(counting).build())
            .build();
    io.opentelemetry.api.trace.Tracer otel = provider.get("once-bench");
    OtelCurrentTraceContext current = new OtelCurrentTraceContext();
    OtelTracer tracer =
        new OtelTracer(
            otel, current, event -> {}, new OtelBaggageManager(current, List.of(), List.of()));
    OtelPropagator propagator =
        new OtelPropagator(
            ContextPropagators.create(W3CTraceContextPropagator.getInstance()), otel);
    registry = ObservationRegistry.create();
    registry
        .observationConfig()
        .observationHandler(
            new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
    tracing = new ObservationTracing(registry, tracer);
  }

  /** {@code off}, {@code on} or {@code sampled} (10 %). */
  static BenchTracing of(String mode) {
    return switch (mode) {
      case "off" -> OFF;
      case "on" -> new BenchTracing("on", 1.0);
      case "sampled" -> new BenchTracing("sampled", 0.1);
      default ->
          throw new IllegalArgumentException(
              "--tracing must be off, on or sampled, was '" + mode + "'");
    };
  }

  Tracing tracing() {
    return tracing;
  }

  /** Runs a producer transaction in a server span (as an HTTP request's), or as it is when off. */
  void inRequest(Runnable work) {
    if (registry == null) {
      work.run();
    } else {
      Observation.createNotStarted("bench.order", registry)
          .contextualName("POST /orders")
          .observe(work);
    }
  }

  /** Spans exported so far (all flushed first). */
  long exported() {
    if (provider != null) {
      provider.forceFlush().join(10, java.util.concurrent.TimeUnit.SECONDS);
    }
    return exported.get();
  }

  @Override
  public void close() {
    if (provider != null) {
      provider.shutdown().join(10, java.util.concurrent.TimeUnit.SECONDS);
    }
  }
}
