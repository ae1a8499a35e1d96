package dev.once.internal;

import dev.once.Event;
import dev.once.Tracing;
import org.slf4j.MDC;

/**
 * The logging MDC of a line about one event: {@value #EVENT_ID}, {@value #CONSUMER} and {@value
 * #TRACE_ID} (from its {@code traceparent}, the key Micrometer Tracing and Spring Boot's log
 * pattern use). Put only around WARN/ERROR lines, so a delivery that goes well costs nothing; what
 * was there before is put back at close.
 */
public final class LogContext implements AutoCloseable {
  static final String EVENT_ID = "once.eventId";
  static final String CONSUMER = "once.consumer";
  static final String TRACE_ID = "traceId";

  private final String[] keys;
  private final String[] before;

  private LogContext(String... keysAndValues) {
    int n = keysAndValues.length / 2;
    keys = new String[n];
    before = new String[n];
    for (int i = 0; i < n; i++) {
      keys[i] = keysAndValues[2 * i];
      before[i] = MDC.get(keys[i]);
      String value = keysAndValues[2 * i + 1];
      if (value != null) {
        MDC.put(keys[i], value);
      }
    }
  }

  /** {@code consumerId} may be null (the relay). */
  public static LogContext of(String consumerId, Event event) {
    return new LogContext(
        EVENT_ID, event.id().value(), CONSUMER, consumerId, TRACE_ID, Tracing.traceId(event));
  }

  @Override
  public void close() {
    for (int i = 0; i < keys.length; i++) {
      if (before[i] == null) {
        MDC.remove(keys[i]);
      } else {
        MDC.put(keys[i], before[i]);
      }
    }
  }
}
