package dev.once.bench.e2e;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code once bench e2e}: Once end to end as a service runs it, against ceiling P (the producers
 * alone) and ceiling C (a hand-written pipeline doing the same work), in one run.
 */
public final class E2eBench {
  private E2eBench() {}

  /**
   * Runs the phases on {@code env} over {@code hops} (1 or 2) hops; {@code latencyRate} 0 paces the
   * latency run at half of the sustained rate; {@code linger} is Once's consumers' batch linger;
   * {@code warmup} orders go through each phase first, not measured.
   */
  public static BenchResult run(
      BenchEnv env, int hops, double latencyRate, Duration linger, int warmup, PrintStream progress)
      throws Exception {
    return run(env, hops, latencyRate, linger, warmup, "off", progress);
  }

  /**
   * As above, with Once's run traced as {@code tracingMode} says (one of {@link
   * BenchTracing#MODES}; the ceilings are never traced).
   */
  public static BenchResult run(
      BenchEnv env,
      int hops,
      double latencyRate,
      Duration linger,
      int warmup,
      String tracingMode,
      PrintStream progress)
      throws Exception {
    if (hops != 1 && hops != 2) {
      throw new IllegalArgumentException("--hops must be 1 or 2, was " + hops);
    }
    BenchSettings s = env.settings();
    progress.printf(
        "once bench e2e: %d orders, %d hop(s), on %s, transport %s%n",
        s.events(), hops, env.description(), env.transportName());
    if (warmup > 0) {
      progress.printf("  warm-up: %d orders through each phase, not measured ...%n", warmup);
      BenchSettings w = s.with(warmup, 0);
      OnceE2e.ceilingP(env, w);
      ceilingC(env, w, hops);
      try (BenchTracing tracing = BenchTracing.of(tracingMode)) {
        OnceE2e.run(
            env, w, hops, 0, linger, tracing, new PrintStream(OutputStream.nullOutputStream()));
      }
      env.rollbacks().clear();
    }
    progress.printf("  %s ceiling P: the producers alone ...%n", now());
    double p = OnceE2e.ceilingP(env, s);
    progress.printf("  %s ceiling P: %.0f orders/s%n", now(), p);
    progress.printf("  %s ceiling C: hand-written pipeline ...%n", now());
    Hand c = ceilingC(env, s, hops);
    progress.printf("  %s ceiling C: %.0f orders/s%n", now(), c.eps());
    progress.printf("  %s Once end to end ...%n", now());
    OnceE2e.Result once;
    long spans;
    try (BenchTracing tracing = BenchTracing.of(tracingMode)) {
      once = OnceE2e.run(env, s, hops, latencyRate, linger, tracing, progress);
      spans = tracing.exported();
    }
    progress.printf("  %s done%n", now());
    Map<String, Object> j = json(s, env, p, c, once, hops, warmup);
    j.put("batch_linger_ms", linger.toMillis());
    j.put("tracing", tracingMode);
    j.put("spans_exported", spans);
    return new BenchResult.Fields(j, 28, once.duplicateEffects() == 0 && c.duplicates() == 0);
  }

  private record Hand(double eps, long[] latencies, long duplicates, long rollbacks) {}

  private static Hand ceilingC(BenchEnv env, BenchSettings s, int hops) throws Exception {
    HandPipeline.Shape shape = hops == 2 ? HandPipeline.Shape.TWO_HOPS : HandPipeline.Shape.ONE_HOP;
    try (HandBroker broker = HandBroker.open(env, s)) {
      HandPipeline pipeline = new HandPipeline(env.dataSource(), broker, s, shape);
      try {
        double eps = pipeline.endToEnd();
        long[] latencies = pipeline.timings().latencies(1, s.events() + 1L);
        pipeline.close();
        return new Hand(eps, latencies, pipeline.duplicateEffects(), pipeline.conflicts());
      } finally {
        pipeline.close();
        BenchTables.reset(env.dataSource());
      }
    }
  }

  private static Map<String, Object> json(
      BenchSettings s, BenchEnv env, double p, Hand c, OnceE2e.Result once, int hops, int warmup) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("e2e_eps", BenchReport.round(once.eps()));
    j.put("ceiling_p_eps", BenchReport.round(p));
    j.put("ceiling_c_eps", BenchReport.round(c.eps()));
    j.put("ratio_c", BenchReport.round3(once.eps() / c.eps()));
    j.put("ratio_p", BenchReport.round3(once.eps() / p));
    j.put("p50_ms", ms(Percentiles.of(once.latencies(), 50)));
    j.put("p99_ms", ms(Percentiles.of(once.latencies(), 99)));
    j.put("max_ms", ms(max(once.latencies())));
    j.put("paced_rate_eps", BenchReport.round(once.pacedRate()));
    j.put("paced_events", once.pacedLatencies().length);
    j.put("paced_p50_ms", ms(Percentiles.of(once.pacedLatencies(), 50)));
    j.put("paced_p99_ms", ms(Percentiles.of(once.pacedLatencies(), 99)));
    j.put("paced_max_ms", ms(max(once.pacedLatencies())));
    j.put("ceiling_c_p50_ms", ms(Percentiles.of(c.latencies(), 50)));
    j.put("ceiling_c_p99_ms", ms(Percentiles.of(c.latencies(), 99)));
    j.put("effects", once.effects());
    j.put("duplicate_effects", once.duplicateEffects());
    j.put("ceiling_c_duplicate_effects", c.duplicates());
    j.put("once_rollbacks", env.rollbacks().once.get());
    j.put("ceiling_c_rollbacks", c.rollbacks());
    j.put("producer_rollbacks", Rollbacks.PRODUCERS.get());
    j.put("hops", hops);
    j.put("events", s.events());
    j.put("transport", env.transportName());
    j.put("database", env.description());
    j.put("workers", s.workers());
    j.put("batch", s.batch());
    j.put("relays", s.relays());
    j.put("relay_batch", s.relayBatch());
    j.put("producers", s.producers());
    j.put("producer_batch", s.producerBatch());
    j.put("latency_producers", s.latencyProducers());
    j.put("warmup_events", warmup);
    j.put("machine", BenchReport.machine());
    return j;
  }

  /** The time of day (UTC) in progress lines: to line them up with samples taken beside. */
  private static String now() {
    return java.time.LocalTime.now(java.time.ZoneOffset.UTC)
        .truncatedTo(java.time.temporal.ChronoUnit.MILLIS)
        .toString();
  }

  private static long max(long[] sorted) {
    return sorted.length == 0 ? 0 : sorted[sorted.length - 1];
  }

  private static double ms(long nanos) {
    return Math.round(nanos / 10_000.0) / 100.0;
  }
}
