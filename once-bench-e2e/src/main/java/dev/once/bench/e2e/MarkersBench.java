package dev.once.bench.e2e;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code once bench markers}: the consumer's throughput with no earlier markers, then with {@code
 * markers} earlier markers of the same consumer in the inbox. The cost must stay flat.
 */
public final class MarkersBench {
  private MarkersBench() {}

  /** Measures both; the earlier markers are deleted at the end. */
  public static BenchResult run(BenchEnv env, long markers, PrintStream progress) throws Exception {
    BenchSettings s = env.settings();
    MarkerHistory history = new MarkerHistory(env.dataSource(), progress);
    history.clear();
    long before = history.inboxRows();
    double zero = ConsumerOnly.run(env, s, progress);
    progress.printf("  consumer with %d inbox rows: %.0f events/s%n", before, zero);
    history.fill(markers);
    long after = history.inboxRows();
    double many = ConsumerOnly.run(env, s, progress);
    progress.printf("  consumer with %d inbox rows: %.0f events/s%n", after, many);
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("markers", markers);
    j.put("inbox_rows_before", before);
    j.put("inbox_rows_after", after);
    j.put("consumer_eps_0", BenchReport.round(zero));
    j.put("consumer_eps_markers", BenchReport.round(many));
    j.put("ratio", BenchReport.round3(many / zero));
    j.put("events", s.events());
    j.put("transport", env.transportName());
    j.put("database", env.description());
    j.put("machine", BenchReport.machine());
    history.clear();
    return new BenchResult.Fields(j, 20, true);
  }
}
