package dev.once.bench.e2e;

import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code once bench e2e}: Once end to end as a service runs it, against ceiling P (raw JDBC
 * producers writing the same business row and outbox row, alone) and ceiling C (a hand-written
 * pipeline doing the same work), full speed and paced at the same rate, in one run; with {@code
 * --service}, the example service ({@link dev.once.bench.e2e.service.OrderService}) in a JVM of its
 * own beside them.
 */
public final class E2eBench {
  private E2eBench() {}

  /**
   * Runs the phases on {@code env} over {@code hops} (1 or 2) hops; {@code latencyRate} 0 paces the
   * latency runs at a third of Once's sustained rate; {@code linger} is Once's consumers' batch
   * linger; {@code warmup} orders go through each phase first, not measured; {@code service} also
   * runs the example service in a JVM of its own with a pool of {@code servicePool} (0: not run).
   */
  public static BenchResult run(
      BenchEnv env, int hops, double latencyRate, Duration linger, int warmup, PrintStream progress)
      throws Exception {
    return run(env, hops, latencyRate, linger, warmup, "off", 0, progress);
  }

  /**
   * As above, with Once's run traced as {@code tracingMode} says (one of {@link
   * BenchTracing#MODES}; the ceilings are never traced), and the example service run too when
   * {@code servicePool} is more than 0.
   */
  public static BenchResult run(
      BenchEnv env,
      int hops,
      double latencyRate,
      Duration linger,
      int warmup,
      String tracingMode,
      int servicePool,
      PrintStream progress)
      throws Exception {
    if (hops != 1 && hops != 2) {
      throw new IllegalArgumentException("--hops must be 1 or 2, was " + hops);
    }
    BenchSettings s = env.settings();
    progress.printf(
        "once bench e2e: %d orders, %d hop(s), on %s, transport %s%n",
        s.events(), hops, env.description(), env.transportName());
    JitWarmup warm = null;
    if (warmup > 0) {
      progress.printf(
          "  warm-up: rounds of %d orders through each phase, not measured, until the JIT"
              + " compiler is quiet ...%n",
          warmup);
      warm =
          JitWarmup.run(
              () -> warmUp(env, hops, linger, warmup, tracingMode),
              "warm-up",
              progress,
              4L * s.events()); // as many through each of the round's 4 phases as measured
    }
    // the producers alone, interleaved: raw JDBC, Once, raw JDBC, Once
    double[] raw = new double[2];
    double[] onceP = new double[2];
    for (int i = 0; i < 2; i++) {
      progress.printf("  %s ceiling P (raw JDBC producers) ...%n", now());
      raw[i] = rawProducers(env, s, hops);
      progress.printf("  %s ceiling P: %.0f orders/s; Once's producers ...%n", now(), raw[i]);
      onceP[i] = OnceE2e.producersAlone(env, s);
      progress.printf("  %s Once's producers: %.0f orders/s%n", now(), onceP[i]);
    }
    double p = (raw[0] + raw[1]) / 2;
    double op = (onceP[0] + onceP[1]) / 2;
    progress.printf("  %s ceiling C: hand-written pipeline ...%n", now());
    Map<String, Long> sqsBefore = env.onSqs() ? env.sqsRequests().snapshot() : null;
    Hand c = ceilingC(env, s, hops, 0, false);
    progress.printf("  %s ceiling C: %.0f orders/s%n", now(), c.eps());
    Map<String, Object> cRequests =
        sqsBefore == null
            ? Map.of()
            : env.sqsRequests().perEvent(sqsBefore, s.events(), "sqs_c_per_order_");
    progress.printf("  %s Once end to end ...%n", now());
    OnceE2e.Result once;
    long spans;
    long jit = JitWarmup.compiledMillis();
    try (BenchTracing tracing = BenchTracing.of(tracingMode)) {
      once = OnceE2e.run(env, s, hops, latencyRate, linger, warmup > 0, tracing, progress);
      spans = tracing.exported();
    }
    jit = JitWarmup.compiledMillis() - jit;
    // the rate Once's paced run was given, not the one it achieved: the same target for all
    double target = latencyRate > 0 ? latencyRate : once.eps() / 3;
    Hand paced = null;
    if (once.pacedLatencies().length > 0) {
      progress.printf("  %s ceiling C paced at %.0f orders/s ...%n", now(), target);
      paced = ceilingC(env, s, hops, target, warmup > 0);
    }
    Map<String, Object> svc = null;
    if (servicePool > 0) {
      svc = ServiceBench.run(env, warmup, target, servicePool, progress);
    }
    if (ceilingVoid(once.eps(), c.eps())) {
      progress.printf(
          "  ceiling C is void in this window: the hand-written pipeline (%.0f orders/s) ran slower"
              + " than Once (%.0f): Once / C says nothing of a strong hand-written pipeline%s%n",
          c.eps(),
          once.eps(),
          warmup > 0
              ? ""
              : " (without --warmup it ran first, in a cold JVM: --warmup 2000 warms both)");
    }
    progress.printf("  %s done%n", now());
    Map<String, Object> j = json(s, env, p, op, c, paced, once, hops, warmup);
    j.putAll(once.sqsRequests());
    j.putAll(cRequests);
    if (!cRequests.isEmpty()) {
      progress.printf("  SQS requests per order, Once: %s%n", once.sqsRequests());
      progress.printf("  SQS requests per order, C:    %s%n", cRequests);
    }
    j.put("batch_linger_ms", linger.toMillis());
    j.put("tracing", tracingMode);
    j.put("spans_exported", spans);
    j.put("e2e_jit_ms", jit); // compiling during Once's run (full speed and paced)
    if (warm != null) {
      warm.report("", j);
    }
    boolean ok = once.duplicateEffects() == 0 && c.duplicates() == 0;
    if (paced != null) {
      ok &= paced.duplicates() == 0;
    }
    if (svc != null) {
      double se = ((Number) svc.get("service_eps")).doubleValue();
      j.put("service_eps", svc.get("service_eps"));
      j.put("service_ratio_e2e", BenchReport.round3(se / once.eps()));
      j.put("service_ratio_c", BenchReport.round3(se / c.eps()));
      svc.forEach(j::putIfAbsent);
      ok &= ((Number) svc.get("service_duplicate_effects")).longValue() == 0;
    }
    return new BenchResult.Fields(j, 44, ok);
  }

  /** One round of the warm-up: {@code warmup} orders through every phase; returns the orders. */
  private static long warmUp(
      BenchEnv env, int hops, Duration linger, int warmup, String tracingMode) throws Exception {
    BenchSettings w = env.settings().with(warmup, 0);
    rawProducers(env, w, hops);
    OnceE2e.producersAlone(env, w);
    ceilingC(env, w, hops, 0, false);
    try (BenchTracing tracing = BenchTracing.of(tracingMode)) {
      OnceE2e.run(
          env,
          w,
          hops,
          0,
          linger,
          false,
          tracing,
          new PrintStream(OutputStream.nullOutputStream()));
    }
    env.rollbacks().clear();
    return 4L * warmup;
  }

  /** The example service alone ({@code once bench e2e --service-only}). */
  public static BenchResult serviceOnly(BenchEnv env, int warmup, double rate, int pool)
      throws Exception {
    Map<String, Object> j =
        new LinkedHashMap<>(ServiceBench.run(env, warmup, rate, pool, System.err));
    j.put("transport", env.transportName());
    j.put("events", env.settings().events());
    j.put("warmup_events", warmup);
    j.put("machine", BenchReport.machine());
    return new BenchResult.Fields(
        j, 28, ((Number) j.get("service_duplicate_effects")).longValue() == 0);
  }

  private record Hand(
      double eps,
      long[] latencies,
      double pacedRate,
      long duplicates,
      long rollbacks,
      Map<String, Object> stages) {}

  /** Ceiling P: the hand-written pipeline's raw JDBC producers alone; orders per second. */
  private static double rawProducers(BenchEnv env, BenchSettings s, int hops) throws Exception {
    try (HandBroker broker = HandBroker.open(env, s)) {
      HandPipeline pipeline = new HandPipeline(env.dataSource(), broker, s, shape(hops));
      try {
        return pipeline.producersAlone();
      } finally {
        pipeline.close();
        BenchTables.reset(env.dataSource());
      }
    }
  }

  private static HandPipeline.Shape shape(int hops) {
    return hops == 2 ? HandPipeline.Shape.TWO_HOPS : HandPipeline.Shape.ONE_HOP;
  }

  /**
   * Ceiling C at full speed ({@code pacedRate} 0: {@code s.events()} orders), or its paced run:
   * {@code s.latencySeconds()} of orders at {@code pacedRate}, one per transaction; {@code
   * warmPaced}: the paced run goes twice and the second is measured, as Once's ({@link PacedJit}).
   */
  private static Hand ceilingC(
      BenchEnv env, BenchSettings s, int hops, double pacedRate, boolean warmPaced)
      throws Exception {
    try (HandBroker broker = HandBroker.open(env, s)) {
      HandPipeline pipeline = new HandPipeline(env.dataSource(), broker, s, shape(hops));
      try {
        double eps = 0;
        double achieved = 0;
        long[] latencies;
        Map<String, Object> stages = new java.util.LinkedHashMap<>();
        if (pacedRate > 0) {
          long n = Math.round(pacedRate * s.latencySeconds());
          long first = 1;
          if (warmPaced) {
            pipeline.paced(first, n, pacedRate);
            first += n;
          }
          PacedJit jit = PacedJit.settle("ceiling_c_paced_", warmPaced);
          achieved = pipeline.paced(first, n, pacedRate);
          latencies = pipeline.timings().latencies(first, first + n);
          stages.putAll(pipeline.timings().stages("ceiling_c_paced_", first, first + n));
          stages.putAll(jit.figures());
        } else {
          long jit = JitWarmup.compiledMillis();
          eps = pipeline.endToEnd();
          stages.put("ceiling_c_jit_ms", JitWarmup.compiledMillis() - jit); // compiling meanwhile
          latencies = pipeline.timings().latencies(1, s.events() + 1L);
          // where a full-speed run's time went: each stage's p50, its end, each step's time
          stages.putAll(pipeline.timings().stages("ceiling_c_", 1, s.events() + 1L));
          stages.putAll(pipeline.timings().ends("ceiling_c_", 1, s.events() + 1L));
          stages.putAll(pipeline.steps().figures("ceiling_c_"));
          broker.counts().forEach((k, v) -> stages.put("ceiling_c_" + k, v));
        }
        pipeline.close();
        return new Hand(
            eps, latencies, achieved, pipeline.duplicateEffects(), pipeline.conflicts(), stages);
      } finally {
        pipeline.close();
        BenchTables.reset(env.dataSource());
      }
    }
  }

  private static Map<String, Object> json(
      BenchSettings s,
      BenchEnv env,
      double p,
      double onceP,
      Hand c,
      Hand paced,
      OnceE2e.Result once,
      int hops,
      int warmup) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("e2e_eps", BenchReport.round(once.eps()));
    j.put("ceiling_p_eps", BenchReport.round(p));
    j.put("once_producers_eps", BenchReport.round(onceP));
    j.put("producer_path_ratio", BenchReport.round3(onceP / p));
    j.put("ceiling_c_eps", BenchReport.round(c.eps()));
    j.put("ratio_c", BenchReport.round3(once.eps() / c.eps()));
    j.put("ceiling_c_void", ceilingVoid(once.eps(), c.eps()));
    j.put("ratio_p", BenchReport.round3(once.eps() / p));
    j.put("p50_ms", ms(Percentiles.of(once.latencies(), 50)));
    j.put("p99_ms", ms(Percentiles.of(once.latencies(), 99)));
    j.put("max_ms", ms(max(once.latencies())));
    j.put("paced_rate_eps", BenchReport.round(once.pacedRate()));
    j.put("paced_events", once.pacedLatencies().length);
    j.put("paced_p50_ms", ms(Percentiles.of(once.pacedLatencies(), 50)));
    j.put("paced_p99_ms", ms(Percentiles.of(once.pacedLatencies(), 99)));
    j.put("paced_max_ms", ms(max(once.pacedLatencies())));
    if (paced != null) {
      j.put("ceiling_c_paced_rate_eps", BenchReport.round(paced.pacedRate()));
      j.put("ceiling_c_paced_p50_ms", ms(Percentiles.of(paced.latencies(), 50)));
      j.put("ceiling_c_paced_p99_ms", ms(Percentiles.of(paced.latencies(), 99)));
      j.put(
          "paced_p50_ratio",
          BenchReport.round3(
              (double) Percentiles.of(once.pacedLatencies(), 50)
                  / Percentiles.of(paced.latencies(), 50)));
      j.put(
          "paced_p99_ratio",
          BenchReport.round3(
              (double) Percentiles.of(once.pacedLatencies(), 99)
                  / Percentiles.of(paced.latencies(), 99)));
    }
    j.putAll(once.pacedStages());
    j.putAll(c.stages());
    if (paced != null) {
      j.putAll(paced.stages());
    }
    j.put("ceiling_c_p50_ms", ms(Percentiles.of(c.latencies(), 50)));
    j.put("ceiling_c_p99_ms", ms(Percentiles.of(c.latencies(), 99)));
    j.put("effects", once.effects());
    j.put("duplicate_effects", once.duplicateEffects());
    j.put("ceiling_c_duplicate_effects", c.duplicates() + (paced == null ? 0 : paced.duplicates()));
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

  /**
   * Ceiling C is void in a window where the hand-written pipeline ran slower than Once: a ceiling
   * below what it bounds is a weak pipeline (as Kafka's was while its clock timed its consumers'
   * joins), and Once / C then reads as a margin it is not.
   */
  static boolean ceilingVoid(double onceEps, double ceilingEps) {
    return ceilingEps < onceEps;
  }

  /** The time of day (UTC) in progress lines: to line them up with samples taken beside. */
  static String now() {
    return java.time.LocalTime.now(java.time.ZoneOffset.UTC)
        .truncatedTo(java.time.temporal.ChronoUnit.MILLIS)
        .toString();
  }

  private static long max(long[] sorted) {
    return sorted.length == 0 ? 0 : sorted[sorted.length - 1];
  }

  static double ms(long nanos) {
    return Math.round(nanos / 10_000.0) / 100.0;
  }
}
