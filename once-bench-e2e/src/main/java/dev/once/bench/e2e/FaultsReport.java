package dev.once.bench.e2e;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The result of {@code once bench faults}: per phase its throughput, faults_ratio, faults, effects,
 * duplicate effects and, in an ordered run, effects out of key order; ok when no phase has a
 * duplicate or out-of-order effect and every phase has all its effects.
 */
final class FaultsReport {
  private FaultsReport() {}

  static BenchResult of(
      BenchEnv env,
      BenchSettings s,
      List<FaultsBench.Phase> phases,
      long seed,
      Duration interval,
      int warmup) {
    double base = phases.get(0).eps();
    Map<String, Object> ratios = new LinkedHashMap<>();
    List<Map<String, Object>> rows = new ArrayList<>();
    long duplicates = 0;
    long outOfOrder = 0;
    boolean complete = true;
    for (FaultsBench.Phase p : phases) {
      if (!p.fault().equals("none")) {
        ratios.put(p.name(), BenchReport.round3(p.eps() / base));
      }
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("phase", p.name());
      row.put("crash_rate", p.crashRate());
      row.put("eps", BenchReport.round(p.eps()));
      row.put("faults_ratio", BenchReport.round3(p.eps() / base));
      row.put("seconds", BenchReport.round(p.seconds()));
      row.put("crashes", p.crashes());
      row.put(p.fault().equals("rebalances") ? "joins_and_leaves" : "cuts", p.disturbances());
      row.put("effects", p.effects());
      row.put("duplicate_effects", p.duplicateEffects());
      if (s.ordered()) {
        row.put("out_of_order", p.outOfOrder());
        outOfOrder += p.outOfOrder();
      }
      row.put("consumed", p.deliveries());
      rows.add(row);
      duplicates += p.duplicateEffects();
      complete &= p.effects() - p.duplicateEffects() == (long) FaultsBench.HOPS * s.events();
    }
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("transport", env.transportName());
    j.put("faults_ratio", ratios);
    j.put("duplicate_effects", duplicates);
    if (s.ordered()) { // an unordered run checks no order: no figure rather than a 0 that means
      // nothing
      KeySteps keys = KeySteps.of(s.events(), s.producers());
      j.put("out_of_order", outOfOrder);
      j.put("keys", keys.keys());
      j.put("steps_per_key", KeySteps.STEPS);
    }
    j.put("eps_without_faults", BenchReport.round(base));
    j.put("phases", rows);
    j.put("events", s.events());
    j.put("hops", FaultsBench.HOPS);
    j.put("seed", seed);
    j.put("fault_interval_ms", interval.toMillis());
    j.put("warmup_events", warmup);
    BenchReport.settings(j, env, s);
    long allDuplicates = duplicates;
    long allOutOfOrder = outOfOrder;
    boolean ok = duplicates == 0 && outOfOrder == 0 && complete;
    return new BenchResult() {
      @Override
      public Map<String, Object> json() {
        return j;
      }

      @Override
      public boolean ok() {
        return ok;
      }

      @Override
      public void print(PrintStream out) {
        out.printf(
            "once bench faults on %s, %s, %d orders per phase%n",
            env.transportName(), env.description(), s.events());
        String line = "  %-14s %9s %12s %9s %8s %8s %11s" + (s.ordered() ? " %12s%n" : "%n");
        out.printf(
            line,
            "phase",
            "orders/s",
            "faults_ratio",
            "seconds",
            "crashes",
            "cuts*",
            "duplicates",
            "out_of_order");
        for (Map<String, Object> row : rows) {
          out.printf(
              line,
              row.get("phase"),
              row.get("eps"),
              row.get("faults_ratio"),
              row.get("seconds"),
              row.get("crashes"),
              row.getOrDefault("cuts", row.get("joins_and_leaves")),
              row.get("duplicate_effects"),
              row.get("out_of_order"));
        }
        out.printf(
            "  * connection cuts (RabbitMQ), consumer joins and leaves (Kafka), or SQS's"
                + " connections cut and its endpoint stalled in turn, every %d ms%n",
            interval.toMillis());
        out.printf(
            "  duplicate_effects %d, out_of_order %s%s%n",
            allDuplicates,
            s.ordered()
                ? allOutOfOrder + " (" + j.get("keys") + " keys of ~" + KeySteps.STEPS + " steps)"
                : "not checked (consumers unordered; --ordered checks key order)",
            ok ? "" : "  FAILED");
      }
    };
  }
}
