package dev.once.tracing;

import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;

/** Reads a W3C {@code traceparent} ({@code 00-<32 hex>-<16 hex>-<2 hex>}). */
final class W3c {
  private W3c() {}

  /** The context it names, or null if it is not a well-formed version-00 traceparent. */
  static TraceContext parse(Tracer tracer, String traceparent) {
    String trace = traceId(traceparent);
    if (trace == null) {
      return null;
    }
    String span = traceparent.substring(36, 52);
    boolean sampled = (Character.digit(traceparent.charAt(54), 16) & 1) == 1;
    return tracer.traceContextBuilder().traceId(trace).spanId(span).sampled(sampled).build();
  }

  /** The trace id of a well-formed traceparent, or null. */
  static String traceId(String traceparent) {
    if (traceparent == null
        || traceparent.length() != 55
        || !traceparent.startsWith("00-")
        || traceparent.charAt(35) != '-'
        || traceparent.charAt(52) != '-'
        || !hex(traceparent, 3, 35)
        || !hex(traceparent, 36, 52)
        || !hex(traceparent, 53, 55)) {
      return null;
    }
    return traceparent.substring(3, 35);
  }

  private static boolean hex(String s, int from, int to) {
    for (int i = from; i < to; i++) {
      if (Character.digit(s.charAt(i), 16) < 0) {
        return false;
      }
    }
    return true;
  }
}
