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
    if (Tracing.traceId(event) == null) {
      return false;
    }
    return (Character.digit(event.headers().get(Tracing.TRACEPARENT).charAt(54), 16) & 1) == 1;
  }

  /** The context in the event's traceparent, or null if it has no well-formed one. */
  static TraceContext parse(Tracer tracer, Event event) {
    String trace = Tracing.traceId(event);
    if (trace == null) {
      return null;
    }
    String traceparent = event.headers().get(Tracing.TRACEPARENT);
    boolean sampled = (Character.digit(traceparent.charAt(54), 16) & 1) == 1;
    return tracer
        .traceContextBuilder()
        .traceId(trace)
        .spanId(traceparent.substring(36, 52))
        .sampled(sampled)
        .build();
  }
}
