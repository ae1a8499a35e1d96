package dev.once.bench.e2e;

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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The tracing of {@code once bench e2e --tracing}: {@code off} (Once's default, {@link
 * Tracing#NONE}); {@code request-only} (as {@code sampled-out} but Once is not traced: what the
 * application's own request spans cost, the part of {@code sampled-out} that is not Once's); {@code
 * sampled-out} (a tracer is there and every producer transaction runs in a span, but the sampler
 * keeps none: the cost a production service pays for the traces it does not keep); {@code sampled}
 * (10 %, parent-based, as a production tracer samples); {@code on} (every order); {@code
 * sampled-out-no-context} (as {@code sampled-out}, Once's tracing {@link
 * ObservationTracing#withoutUnsampledContext() without the unsampled context}: what storing it
 * costs, not a default). Spans go through OpenTelemetry's batch processor to an exporter that only
 * counts them.
 */
public final class BenchTracing implements AutoCloseable {
  /** The modes, as {@code --tracing} takes them. */
  public static final List<String> MODES =
      List.of("off", "request-only", "sampled-out", "sampled", "on", "sampled-out-no-context");

  private static final BenchTracing OFF = new BenchTracing();

  private final String mode;
  private final ObservationRegistry registry;
  private final Tracing tracing;
  private final SdkTracerProvider provider;
  private final AtomicLong exported = new AtomicLong();

  private BenchTracing() {
    this.mode = "off";
    this.registry = null;
    this.tracing = Tracing.NONE;
    this.provider = null;
  }

  /** How Once is traced in a mode. */
  private enum Hook {
    NOT,
    TRACED,
    /** {@link ObservationTracing#withoutUnsampledContext()}: no context stored for unsampled. */
    TRACED_NO_UNSAMPLED_CONTEXT
  }

  private BenchTracing(String mode, Sampler sampler, Hook hook) {
    this.mode = mode;
    provider =
        SdkTracerProvider.builder()
            .setSampler(Sampler.parentBased(sampler))
            .addSpanProcessor(BatchSpanProcessor.builder(new Counting(exported)).build())
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
    ObservationTracing traced = new ObservationTracing(registry, tracer, propagator);
    tracing =
        switch (hook) {
          case NOT -> Tracing.NONE;
          case TRACED -> traced;
          case TRACED_NO_UNSAMPLED_CONTEXT -> traced.withoutUnsampledContext();
        };
  }

  /** One of {@link #MODES}. */
  public static BenchTracing of(String mode) {
    return switch (mode) {
      case "off" -> OFF;
      case "request-only" -> new BenchTracing(mode, Sampler.alwaysOff(), Hook.NOT);
      case "sampled-out" -> new BenchTracing(mode, Sampler.alwaysOff(), Hook.TRACED);
      case "sampled" -> new BenchTracing(mode, Sampler.traceIdRatioBased(0.1), Hook.TRACED);
      case "on" -> new BenchTracing(mode, Sampler.alwaysOn(), Hook.TRACED);
      case "sampled-out-no-context" ->
          new BenchTracing(mode, Sampler.alwaysOff(), Hook.TRACED_NO_UNSAMPLED_CONTEXT);
      default ->
          throw new IllegalArgumentException(
              "--tracing must be one of " + MODES + ", was '" + mode + "'");
    };
  }

  public String mode() {
    return mode;
  }

  Tracing tracing() {
    return tracing;
  }

  /** Runs a producer transaction in a server span (an HTTP request's), or as it is when off. */
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
  public long exported() {
    if (provider != null) {
      provider.forceFlush().join(10, TimeUnit.SECONDS);
    }
    return exported.get();
  }

  @Override
  public void close() {
    if (provider != null) {
      provider.shutdown().join(10, TimeUnit.SECONDS);
    }
  }

  /** An exporter that counts what it is given. */
  private record Counting(AtomicLong exported) implements SpanExporter {
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
  }
}
