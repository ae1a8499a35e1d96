package dev.once.tracing;

import dev.once.Event;
import dev.once.Tracing;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;

/** Reads a W3C {@code traceparent} ({@code 00-<32 hex>-<16 hex>-<2 hex>}). */
final class W3c {
  private W3c() {}

  /** Whether the event's traceparent is well formed and has the sampled flag; false without one. */
  static boolean sampled(Event event) {
    String traceparent = Tracing.traceparent(event);
    return traceparent != null && sampled(traceparent);
  }

  /** Whether a well-formed {@code traceparent} has the sampled flag. */
  static boolean sampled(String traceparent) {
    return (Character.digit(traceparent.charAt(54), 16) & 1) == 1;
  }

  /** The context in the event's traceparent, or null if it has no well-formed one. */
  static TraceContext parse(Tracer tracer, Event event) {
    String traceparent = Tracing.traceparent(event);
    if (traceparent == null) {
      return null;
    }
    return tracer
        .traceContextBuilder()
        .traceId(traceparent.substring(3, 35))
        .spanId(traceparent.substring(36, 52))
        .sampled(sampled(traceparent))
        .build();
  }
}
