package dev.once;

import java.util.Map;

/**
 * The tracing hook: where the engine opens a span and carries a trace context. Core only calls it;
 * {@code once-tracing} implements it over Micrometer Observation (which bridges to OpenTelemetry
 * and Brave). {@link #NONE}, the default, returns constants: with tracing off a delivery costs no
 * allocation and no statement more.
 *
 * <p>The trace context travels in the event's headers (W3C {@code traceparent}, {@code tracestate},
 * baggage): written with the outbox row by {@link Tx#publish}, in the producer's transaction,
 * carried by every transport as its native headers, and read by the consumer. An event that already
 * carries a {@code traceparent} (a foreign producer's, or one set by hand) keeps it: the hook never
 * adds a second.
 *
 * <p>Implementations must be thread-safe and fast, and must not throw: a failing tracer must not
 * stop processing (the engine does not catch for them).
 */
public interface Tracing {

  /** No spans, no headers. */
  Tracing NONE = new Tracing() {};

  /** The W3C trace context header. */
  String TRACEPARENT = "traceparent";

  /**
   * The trace id in {@code event}'s {@link #TRACEPARENT} header (32 hex digits), or null when it
   * has none or it is not a well-formed W3C version-00 traceparent. What logs, {@code once
   * dead-letters show} and the dashboard show of a delivery's trace.
   */
  static String traceId(Event event) {
    String tp = traceparent(event);
    return tp == null ? null : tp.substring(3, 35);
  }

  /**
   * {@code event}'s {@link #TRACEPARENT} header if it is a well-formed W3C version-00 traceparent
   * ({@code 00-<32 hex>-<16 hex>-<2 hex>}, lower case), else null. Allocates nothing: a hook checks
   * every delivery's header with it.
   */
  static String traceparent(Event event) {
    String tp = event.headers().get(TRACEPARENT);
    return isTraceparent(tp) ? tp : null;
  }

  /**
   * Whether {@code tp} is a well-formed W3C version-00 traceparent ({@code 00-<32 hex>-<16 hex>-<2
   * hex>}, lower case). Allocates nothing.
   */
  static boolean isTraceparent(String tp) {
    return tp != null
        && tp.length() == 55
        && tp.startsWith("00-")
        && tp.charAt(35) == '-'
        && tp.charAt(52) == '-'
        && hex(tp, 3, 35)
        && hex(tp, 36, 52)
        && hex(tp, 53, 55);
  }

  private static boolean hex(String s, int from, int to) {
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
        return false;
      }
    }
    return true;
  }

  /**
   * Producer: {@code event} is about to be written to the outbox in the caller's transaction. If
   * there is a current span, starts the publish span as its child and puts its context into {@code
   * carrier}, whose entries are stored as headers of the row; with no current span, or if the event
   * carries a {@link #TRACEPARENT} already, leaves {@code carrier} empty.
   */
  default Span publish(Event event, Map<String, String> carrier) {
    return Span.NONE;
  }

  /** Relay: {@code event} is about to be sent on transport {@code system}. */
  default Span send(String system, Event event) {
    return Span.NONE;
  }

  /**
   * Consumer: one delivery attempt of {@code event} on transport {@code system} starts. The span is
   * a child of the context in the event's headers (none: a new trace, or none at all). Its {@link
   * Span#open scope} is open while the handler runs, so what the handler publishes carries it.
   */
  default Span process(String system, ReceivedEvent event) {
    return Span.NONE;
  }

  /** Operation: the provider is about to be called with the stored key. */
  default Span operation(OperationResult operation) {
    return Span.NONE;
  }

  /** Consumer: {@code event} is being written as a dead letter of {@code consumerId}. */
  default Span deadLetter(String consumerId, Event event) {
    return Span.NONE;
  }

  /** A started span. Ended once, by the engine. */
  interface Span {
    Span NONE = new Span() {};

    /** Makes this span the current one on this thread until the scope closes. */
    default Scope open() {
      return Scope.NONE;
    }

    /** Consumer: what the delivery came to. */
    default void outcome(Outcome outcome) {}

    /**
     * The step failed; {@code error}'s class is recorded, never its message (it may quote data).
     */
    default void error(Throwable error) {}

    default void end() {}
  }

  /** A span made current; closed on the thread that opened it. */
  interface Scope extends AutoCloseable {
    Scope NONE = () -> {};

    @Override
    void close();
  }
}
