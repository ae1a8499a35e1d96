package dev.once.bench.e2e;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where the hand-written pipeline's threads spend their time, step by step: each step's calls, rows
 * and wall time summed over its threads. A full-speed run's figures say which step holds the
 * pipeline back (a relay's send and acks, a consumer's poll, transaction or offset commit).
 */
final class HandSteps {
  /** A step of a relay or consumer thread. */
  enum Step {
    /** The relay's claim of a batch ({@code FOR UPDATE SKIP LOCKED}). */
    RELAY_CLAIM,
    /** The relay's send of a batch and the wait for the broker's acks. */
    RELAY_PUBLISH,
    /** The relay's mark-sent and commit. */
    RELAY_MARK,
    /** A consumer's poll that returned deliveries. */
    CONSUMER_POLL,
    /** A consumer's poll that returned nothing. */
    CONSUMER_IDLE,
    /** A consumer's transaction: markers, effects, commit. */
    CONSUMER_TX,
    /** A consumer's acknowledgement (on Kafka: the offsets' commit, or its hand-off). */
    CONSUMER_ACK
  }

  private final LongAdder[] calls = adders();
  private final LongAdder[] rows = adders();
  private final LongAdder[] nanos = adders();

  private static LongAdder[] adders() {
    LongAdder[] a = new LongAdder[Step.values().length];
    for (int i = 0; i < a.length; i++) {
      a[i] = new LongAdder();
    }
    return a;
  }

  /** One call of {@code step} over {@code n} rows that began at {@code startNanos}. */
  void add(Step step, int n, long startNanos) {
    int i = step.ordinal();
    calls[i].increment();
    rows[i].add(n);
    nanos[i].add(System.nanoTime() - startNanos);
  }

  /** Per step: calls, rows per call, ms per call, and the step's total in ms. */
  Map<String, Object> figures(String prefix) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (Step s : Step.values()) {
      int i = s.ordinal();
      long c = calls[i].sum();
      String name = prefix + s.name().toLowerCase(Locale.ROOT) + "_";
      m.put(name + "calls", c);
      m.put(name + "rows_per_call", c == 0 ? 0.0 : BenchReport.round(rows[i].sum() / (double) c));
      m.put(name + "ms_per_call", c == 0 ? 0.0 : E2eBench.ms(nanos[i].sum() / c));
      m.put(name + "total_ms", E2eBench.ms(nanos[i].sum()));
    }
    return m;
  }
}
