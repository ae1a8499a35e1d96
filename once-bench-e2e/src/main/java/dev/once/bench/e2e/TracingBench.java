package dev.once.bench.e2e;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code once bench tracing}: what tracing costs Once's end-to-end pipeline, in one run. Each mode
 * (of {@link BenchTracing#MODES}) runs {@code warmup} orders first, then every round runs each mode
 * once over the same orders, the order of the modes turned by one each round (A B C D, B C D A, …)
 * so that none always follows another; the pipeline is the one of {@code once bench e2e} (no
 * ceilings, no paced run). A mode's cost is the median over rounds of its rate divided by {@code
 * off}'s rate of the same round, beside its CPU time per order (the bench's JVM, every thread) and
 * WAL bytes per order (PostgreSQL), which other processes' load moves less than a rate. Each mode
 * is also paired round by round with {@code request-only} (a mode over it is Once's own share), on
 * the rate and on the CPU per order of the JVM and the database together (see {@link #paired}).
 */
public final class TracingBench {
  private TracingBench() {}

  /** The per-order figures of a run whose median each mode reports. */
  private static final List<String> MEDIANS =
      List.of(
          "eps",
          "cpu_us_per_order",
          "db_cpu_us_per_order",
          "total_cpu_us_per_order",
          "wal_bytes_per_order",
          "relay_batches_per_order",
          "consumer_tx_per_order",
          "paced_cpu_us_per_order",
          "paced_db_cpu_us_per_order",
          "paced_total_cpu_us_per_order",
          "paced_wal_bytes_per_order",
          "paced_p50_ms",
          "paced_p99_ms");

  /** One mode's run in one round. */
  private record Run(int round, String mode, OnceE2e.Result result, long spans) {
    /** Its figures; a cost the database did not report is -1. */
    Map<String, Number> figures(long orders) {
      Map<String, Number> m = new LinkedHashMap<>();
      m.put("eps", round(result.eps()));
      costs(m, "", result.cost(), orders);
      m.put("p99_ms", E2eBench.ms(Percentiles.of(result.latencies(), 99)));
      long paced = result.pacedLatencies().length;
      if (result.pacedCost() != null && paced > 0) {
        m.put("paced_eps", round(result.pacedRate()));
        costs(m, "paced_", result.pacedCost(), paced);
        m.put("paced_p50_ms", E2eBench.ms(Percentiles.of(result.pacedLatencies(), 50)));
        m.put("paced_p99_ms", E2eBench.ms(Percentiles.of(result.pacedLatencies(), 99)));
      }
      m.put("spans_exported", spans);
      m.put("duplicate_effects", result.duplicateEffects());
      return m;
    }

    private static void costs(Map<String, Number> m, String prefix, RunCost.Spent c, long n) {
      m.put(prefix + "cpu_us_per_order", round(c.cpuNanos() / 1e3 / n));
      m.put(
          prefix + "db_cpu_us_per_order",
          c.dbCpuNanos() < 0 ? -1 : round(c.dbCpuNanos() / 1e3 / n));
      m.put(
          prefix + "total_cpu_us_per_order",
          c.dbCpuNanos() < 0 ? -1 : round((c.cpuNanos() + c.dbCpuNanos()) / 1e3 / n));
      m.put(
          prefix + "wal_bytes_per_order", c.walBytes() < 0 ? -1 : round((double) c.walBytes() / n));
      m.put(prefix + "relay_batches_per_order", BenchReport.round3((double) c.relayBatches() / n));
      m.put(
          prefix + "consumer_tx_per_order",
          BenchReport.round3((double) c.consumerTransactions() / n));
    }

    private static double round(double v) {
      return BenchReport.round(v);
    }
  }

  /** A paced run after each full-speed one: {@code seconds} at {@code rate} orders/s (0: none). */
  public record Paced(double rate, int seconds) {}

  public static BenchResult run(
      BenchEnv env,
      int hops,
      List<String> modes,
      int rounds,
      int warmup,
      Paced paced,
      PrintStream progress)
      throws Exception {
    BenchSettings s = env.settings().with(env.settings().events(), paced.seconds());
    progress.printf(
        "once bench tracing: %s, %d round(s) of %d orders, %d hop(s), on %s, transport %s%n",
        modes, rounds, s.events(), hops, env.description(), env.transportName());
    if (warmup > 0) {
      for (String mode : modes) {
        progress.printf("  %s warm-up: %d orders, tracing %s%n", E2eBench.now(), warmup, mode);
        runOnce(
            env,
            s.with(warmup, 0),
            hops,
            mode,
            0,
            0,
            new PrintStream(OutputStream.nullOutputStream()));
      }
    }
    List<Run> runs = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      for (int i = 0; i < modes.size(); i++) {
        String mode = modes.get((i + round) % modes.size());
        Run run = runOnce(env, s, hops, mode, round, paced.rate(), progress);
        runs.add(run);
        progress.printf(
            "  %s round %d %-12s %s%n", E2eBench.now(), round + 1, mode, run.figures(s.events()));
      }
    }
    return result(env, s, hops, modes, rounds, warmup, paced, runs);
  }

  private static Run runOnce(
      BenchEnv env,
      BenchSettings s,
      int hops,
      String mode,
      int round,
      double pacedRate,
      PrintStream progress)
      throws Exception {
    try (BenchTracing tracing = BenchTracing.of(mode)) {
      OnceE2e.Result r =
          OnceE2e.run(env, s, hops, pacedRate, OnceE2e.DEFAULT_LINGER, false, tracing, progress);
      return new Run(round, mode, r, tracing.exported());
    }
  }

  private static BenchResult result(
      BenchEnv env,
      BenchSettings s,
      int hops,
      List<String> modes,
      int rounds,
      int warmup,
      Paced paced,
      List<Run> runs) {
    Map<String, Object> j = new LinkedHashMap<>();
    long duplicates = 0;
    for (String mode : modes) {
      List<Run> of = runs.stream().filter(r -> r.mode().equals(mode)).toList();
      if (modes.contains("off")) { // off's own too (1.0), as before
        j.put(
            mode + "_ratio_off_median",
            BenchReport.round3(
                median(of, r -> r.result().eps() / same(r, "off", runs).result().eps())));
      }
      for (String base : BASES) {
        if (modes.contains(base) && !mode.equals(base)) {
          paired(j, mode, base, of, runs, s.events());
        }
      }
      for (String figure : MEDIANS) {
        if (of.get(0).figures(s.events()).containsKey(figure)) {
          j.put(
              mode + "_" + figure + "_median",
              BenchReport.round3(median(of, r -> r.figures(s.events()).get(figure).doubleValue())));
        }
      }
      j.put(mode + "_spans_exported", of.stream().mapToLong(Run::spans).sum());
    }
    List<Map<String, Object>> each = new ArrayList<>();
    for (Run r : runs) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("round", r.round() + 1);
      m.put("tracing", r.mode());
      m.putAll(r.figures(s.events()));
      each.add(m);
      duplicates += r.result().duplicateEffects();
    }
    j.put("runs", each);
    j.put("duplicate_effects", duplicates);
    j.put("rounds", rounds);
    j.put("hops", hops);
    j.put("events", s.events());
    j.put("paced_rate", paced.rate());
    j.put("paced_seconds", paced.seconds());
    j.put("warmup_events", warmup);
    j.put("transport", env.transportName());
    BenchReport.settings(j, env, s);
    return new BenchResult.Fields(j, 36, duplicates == 0);
  }

  /**
   * The modes every other one is compared with, round by round: {@code off}, and {@code
   * request-only} (the application's own request span: a mode over it is Once's share).
   */
  private static final List<String> BASES = List.of("off", "request-only");

  /**
   * {@code mode} against {@code base}, each figure a median over rounds of its ratio to {@code
   * base}'s in the same round: the rate ({@code <mode>_ratio_<base>_median}, and in how many rounds
   * it was the slower) and the CPU per order of the JVM and the database together, full speed and
   * paced ({@code <mode>_total_cpu_over_<base>_median}, {@code
   * <mode>_paced_total_cpu_over_<base>_median}). The paced run's CPU per order is the steadiest:
   * every mode does the same orders per second there, so the engine's idle polls weigh the same.
   */
  private static void paired(
      Map<String, Object> j, String mode, String base, List<Run> of, List<Run> runs, long orders) {
    j.put(
        mode + "_ratio_" + base + "_median",
        BenchReport.round3(median(of, r -> r.result().eps() / same(r, base, runs).result().eps())));
    j.put(
        mode + "_slower_than_" + base + "_rounds",
        of.stream().filter(r -> r.result().eps() < same(r, base, runs).result().eps()).count());
    for (String figure : List.of("total_cpu_us_per_order", "paced_total_cpu_us_per_order")) {
      if (of.stream().allMatch(r -> figure(r, figure, orders) > 0)) {
        String name = figure.replace("_us_per_order", "_over_") + base + "_median";
        j.put(
            mode + "_" + name,
            BenchReport.round3(
                median(
                    of,
                    r -> figure(r, figure, orders) / figure(same(r, base, runs), figure, orders))));
      }
    }
  }

  /** A figure of a run, or -1 if the run has none. */
  private static double figure(Run run, String figure, long orders) {
    Number n = run.figures(orders).get(figure);
    return n == null ? -1 : n.doubleValue();
  }

  /** The run of mode {@code base} in {@code run}'s round. */
  private static Run same(Run run, String base, List<Run> runs) {
    for (Run r : runs) {
      if (r.round() == run.round() && r.mode().equals(base)) {
        return r;
      }
    }
    throw new IllegalStateException("no '" + base + "' run in round " + (run.round() + 1));
  }

  private static double median(List<Run> runs, java.util.function.ToDoubleFunction<Run> f) {
    double[] v = runs.stream().mapToDouble(f).sorted().toArray();
    if (v.length == 0) {
      return 0;
    }
    int m = v.length / 2;
    return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
  }

  /** The modes of {@code --modes} (comma separated), each checked. */
  public static List<String> checkedModes(String modes) {
    List<String> list = Arrays.stream(modes.split(",")).map(String::trim).toList();
    for (String m : list) {
      if (!BenchTracing.MODES.contains(m)) {
        throw new IllegalArgumentException(
            "--modes must be a comma-separated list of "
                + BenchTracing.MODES
                + ", had '"
                + m
                + "'");
      }
    }
    return list;
  }
}
