package dev.once.tracing;

import dev.once.Event;
import dev.once.OperationResult;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.Tracing;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.Kind;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import java.util.Map;

/**
 * Once's {@link Tracing} hook over Micrometer Observation: what Spring Boot uses, bridged to
 * OpenTelemetry or Brave by {@code micrometer-tracing}. Register it with {@code
 * Once.builder().tracing(new ObservationTracing(registry, tracer, propagator))}; the Boot starter
 * does it from the application's {@link ObservationRegistry}.
 *
 * <p>Once continues a trace, it never starts one: an event published with no current span carries
 * no context and makes no span, anywhere. Observations (the propagating handlers of the registry
 * inject and extract the context, W3C {@code traceparent}/{@code tracestate} and baggage as
 * configured):
 *
 * <ul>
 *   <li>{@value #PUBLISH} (producer kind), child of the caller's span, in {@code tx.publish}: its
 *       context is stored in the outbox row's headers, in the producer's transaction;
 *   <li>{@value #SEND} (producer kind), the relay's send, a root linked to the publish span (needs
 *       the {@link Tracer});
 *   <li>{@value #PROCESS} (consumer kind), one per delivery attempt, child of the context in the
 *       message, with {@value #OUTCOME}; the handler runs in it;
 *   <li>{@value #OPERATION} (client kind), the provider call, with the operation id;
 *   <li>{@value #DEAD_LETTER}, the dead letter's write, child of the process span.
 * </ul>
 *
 * Attributes follow OpenTelemetry's messaging conventions ({@code messaging.system}, {@code
 * messaging.destination.name}, {@code messaging.message.id} = the event id, {@code
 * messaging.consumer.group.name}); never a payload value, never an error message (only its class,
 * as {@code error.type}).
 */
public final class ObservationTracing implements Tracing {
  public static final String PUBLISH = "once.publish";
  public static final String SEND = "once.send";
  public static final String PROCESS = "once.process";
  public static final String OPERATION = "once.operation";
  public static final String DEAD_LETTER = "once.dead_letter";
  public static final String OUTCOME = "once.outcome";

  /** The W3C headers carried verbatim from an unsampled delivery to what its handler publishes. */
  private static final String[] CARRIED = {TRACEPARENT, "tracestate", "baggage"};

  /**
   * The headers of the unsampled delivery whose handler runs on this thread (see {@link #process}),
   * or null.
   */
  private static final ThreadLocal<Map<String, String>> UNSAMPLED = new ThreadLocal<>();

  private final ObservationRegistry registry;
  private final Tracer tracer;
  private final Propagator propagator;
  private final boolean storeUnsampled;

  /**
   * @param tracer the tracer behind the registry's tracing handler, or null: then a span current
   *     outside Observation is not seen and the relay makes no send span
   * @param propagator the propagator of the registry's propagating handlers, or null: with it, a
   *     publish under a span the sampler does not keep writes that span's context (and baggage, as
   *     the propagator is configured) without an observation; without it, only when there is no
   *     baggage
   */
  public ObservationTracing(ObservationRegistry registry, Tracer tracer, Propagator propagator) {
    this(registry, tracer, propagator, true);
  }

  private ObservationTracing(
      ObservationRegistry registry, Tracer tracer, Propagator propagator, boolean storeUnsampled) {
    if (registry == null) {
      throw new IllegalArgumentException("registry must not be null");
    }
    this.registry = registry;
    this.tracer = tracer;
    this.propagator = propagator;
    this.storeUnsampled = storeUnsampled;
  }

  /**
   * @param tracer the tracer behind the registry's tracing handler, or null: then a span current
   *     outside Observation is not seen and the relay makes no send span
   */
  public ObservationTracing(ObservationRegistry registry, Tracer tracer) {
    this(registry, tracer, null);
  }

  public ObservationTracing(ObservationRegistry registry) {
    this(registry, null, null);
  }

  /**
   * The same tracing, except that the context of a trace the sampler does not keep is not stored:
   * an unsampled publish, and what the handler of an unsampled delivery publishes, write no {@code
   * traceparent} (nor {@code tracestate}, nor baggage) into the row. Sampled traces are as before,
   * and still no new trace starts (Once never starts one: a row without a context makes no span).
   * The trade: those events' rows are smaller (about 90 bytes less in each row version of the
   * outbox and queue tables, so less WAL), but their log lines, dead letters and a later service's
   * sampler no longer see the trace id, and a service further on that samples by itself starts its
   * own trace where the unsampled one would have gone on. Needs the {@link Tracer} to tell an
   * unsampled publish (without it, it is written as before).
   */
  public ObservationTracing withoutUnsampledContext() {
    return new ObservationTracing(registry, tracer, propagator, false);
  }

  private boolean inTrace() {
    return registry.getCurrentObservation() != null
        || (tracer != null && tracer.currentSpan() != null);
  }

  @Override
  public Span publish(Event event, Map<String, String> carrier) {
    if (registry.isNoop() || event.headers().containsKey(TRACEPARENT)) {
      return Span.NONE;
    }
    Map<String, String> unsampled = UNSAMPLED.get();
    if (unsampled != null) { // the same trace, not sampled: its context goes on, no span is made
      if (!storeUnsampled) {
        return Span.NONE;
      }
      for (String name : CARRIED) {
        String value = unsampled.get(name);
        if (value != null) {
          carrier.put(name, value);
        }
      }
      return Span.NONE;
    }
    if (!inTrace()) {
      return Span.NONE;
    }
    if (carryUnsampled(carrier)) {
      return Span.NONE;
    }
    SenderContext<Map<String, String>> context =
        new SenderContext<>((c, name, value) -> c.put(name, value), Kind.PRODUCER);
    context.setCarrier(carrier);
    Observation o =
        Observation.createNotStarted(PUBLISH, () -> context, registry)
            .contextualName("create " + event.destination())
            .lowCardinalityKeyValue("messaging.operation.type", "create")
            .lowCardinalityKeyValue("messaging.destination.name", event.destination())
            .highCardinalityKeyValue("messaging.message.id", event.id().value());
    return new ObservedSpan(o.start());
  }

  /**
   * When the caller's current span is not sampled: puts its context into {@code carrier} instead of
   * starting a publish span nobody would keep, and returns true. With the {@link Propagator} it
   * injects the span's context as a propagating handler would (its {@code traceparent} with the
   * sampled flag off, {@code tracestate}, baggage as configured); without it, it writes the {@code
   * traceparent} itself if there is no baggage, and otherwise returns false (an observation then
   * carries the baggage). {@link #withoutUnsampledContext() Without the unsampled context} it puts
   * nothing and returns true. Without the {@link Tracer} it cannot tell, and returns false.
   */
  private boolean carryUnsampled(Map<String, String> carrier) {
    if (tracer == null) {
      return false;
    }
    TraceContext context = tracer.currentTraceContext().context();
    if (context == null || !Boolean.FALSE.equals(context.sampled())) {
      return false;
    }
    if (!storeUnsampled) {
      return true;
    }
    if (propagator != null) {
      propagator.inject(context, carrier, Map::put);
      return true;
    }
    if (!tracer.getAllBaggage().isEmpty()) {
      return false;
    }
    carrier.put(TRACEPARENT, "00-" + context.traceId() + "-" + context.spanId() + "-00");
    return true;
  }

  @Override
  public Span send(String system, Event event) {
    if (tracer == null || !W3c.sampled(event)) {
      return Span.NONE; // no context, or one whose trace is not sampled: no span would be kept
    }
    TraceContext linked = W3c.parse(tracer, event);
    if (linked == null) {
      return Span.NONE;
    }
    io.micrometer.tracing.Span span =
        tracer
            .spanBuilder()
            .setNoParent()
            .kind(io.micrometer.tracing.Span.Kind.PRODUCER)
            .name("send " + event.destination())
            .addLink(new Link(linked))
            .tag("messaging.system", system)
            .tag("messaging.operation.type", "send")
            .tag("messaging.destination.name", event.destination())
            .tag("messaging.message.id", event.id().value())
            .start();
    return new TracerSpan(span);
  }

  /**
   * {@inheritDoc}
   *
   * <p>A delivery whose {@code traceparent} says its trace is not sampled makes no observation: no
   * span of it would be kept. Its handler's publishes carry its {@code traceparent}, {@code
   * tracestate} and {@code baggage} on as they came, so the trace id goes on (for logs, and for a
   * sampler further on) at the cost of copying three headers.
   */
  @Override
  public Span process(String system, ReceivedEvent event) {
    Map<String, String> headers = event.event().headers();
    if (registry.isNoop() || !headers.containsKey(TRACEPARENT)) {
      return Span.NONE;
    }
    String traceparent = Tracing.traceparent(event.event());
    if (traceparent != null && !W3c.sampled(traceparent)) {
      return new Unsampled(headers);
    }
    ReceiverContext<Map<String, String>> context = new ReceiverContext<>(Map::get, Kind.CONSUMER);
    context.setCarrier(event.event().headers());
    context.setRemoteServiceName(system);
    Observation o =
        Observation.createNotStarted(PROCESS, () -> context, registry)
            .contextualName("process " + event.event().destination())
            .lowCardinalityKeyValue("messaging.system", system)
            .lowCardinalityKeyValue("messaging.operation.type", "process")
            .lowCardinalityKeyValue("messaging.destination.name", event.event().destination())
            .lowCardinalityKeyValue("messaging.consumer.group.name", event.consumerId())
            .highCardinalityKeyValue("messaging.message.id", event.id().value())
            .highCardinalityKeyValue(
                "messaging.message.delivery_count", Integer.toString(event.deliveryCount()));
    return new ObservedSpan(o.start());
  }

  @Override
  public Span operation(OperationResult operation) {
    if (registry.isNoop() || !inTrace()) {
      return Span.NONE;
    }
    Observation o =
        Observation.createNotStarted(OPERATION, registry)
            .contextualName("call " + operation.provider())
            .lowCardinalityKeyValue("once.operation.provider", operation.provider())
            .highCardinalityKeyValue("once.operation.id", operation.operationId())
            .highCardinalityKeyValue(
                "once.operation.attempt", Integer.toString(operation.attempts()));
    return new ObservedSpan(o.start());
  }

  @Override
  public Span deadLetter(String consumerId, Event event) {
    if (registry.isNoop() || registry.getCurrentObservation() == null) {
      return Span.NONE;
    }
    Observation o =
        Observation.createNotStarted(DEAD_LETTER, registry)
            .contextualName("dead-letter " + event.destination())
            .lowCardinalityKeyValue("messaging.destination.name", event.destination())
            .lowCardinalityKeyValue("messaging.consumer.group.name", consumerId)
            .highCardinalityKeyValue("messaging.message.id", event.id().value());
    return new ObservedSpan(o.start());
  }

  /** The span of an unsampled delivery: none, only its context made current for its handler. */
  private record Unsampled(Map<String, String> headers) implements Span {
    @Override
    public Scope open() {
      Map<String, String> outer = UNSAMPLED.get();
      UNSAMPLED.set(headers);
      return () -> UNSAMPLED.set(outer);
    }
  }

  /** A started observation. */
  private static final class ObservedSpan implements Span {
    private final Observation observation;

    ObservedSpan(Observation observation) {
      this.observation = observation;
    }

    @Override
    public Scope open() {
      Observation.Scope scope = observation.openScope();
      return scope::close;
    }

    @Override
    public void outcome(Outcome outcome) {
      observation.lowCardinalityKeyValue(OUTCOME, outcome.name());
    }

    @Override
    public void error(Throwable error) {
      observation.lowCardinalityKeyValue("error.type", error.getClass().getName());
      observation.error(new Failed(error));
    }

    @Override
    public void end() {
      observation.stop();
    }
  }

  /** A span of the tracer itself (the relay's send, which Observation cannot link). */
  private static final class TracerSpan implements Span {
    private final io.micrometer.tracing.Span span;

    TracerSpan(io.micrometer.tracing.Span span) {
      this.span = span;
    }

    @Override
    public void error(Throwable error) {
      span.tag("error.type", error.getClass().getName());
      span.error(new Failed(error));
    }

    @Override
    public void end() {
      span.end();
    }
  }

  /**
   * What a span records of a failure: its class, never its message (it may quote a payload or a
   * provider's answer).
   */
  static final class Failed extends RuntimeException {
    Failed(Throwable error) {
      super(error.getClass().getName(), null, false, false);
    }
  }
}
