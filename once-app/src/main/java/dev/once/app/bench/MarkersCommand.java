package dev.once.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.once.app.Flags;
import dev.once.app.Logging;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code once bench markers}: the consumer's throughput with no earlier markers, then with {@code
 * --markers} earlier markers of the same consumer in the inbox. The cost must stay flat.
 */
@Command(
    name = "markers",
    mixinStandardHelpOptions = true,
    description = {
      "Consumer throughput with no earlier markers, then with --markers earlier markers of the"
          + " same consumer ('earlier:N') in once_inbox; both are deleted at the end."
    })
public final class MarkersCommand implements Callable<Integer> {
  @Mixin BenchOptions options;

  @Option(
      names = "--markers",
      defaultValue = "1000000",
      description = "Earlier markers for the second measurement (default ${DEFAULT-VALUE}).")
  long markers;

  @Option(
      names = "--events",
      defaultValue = "20000",
      description = "Events per measurement (default ${DEFAULT-VALUE}).")
  int events;

  @Override
  public Integer call() throws Exception {
    Flags.atLeast("--markers", markers, 0);
    BenchSettings s = options.settings(events, 0);
    Logging.quietEngine(true);
    PrintStream progress = System.err;
    try (BenchEnv env = new BenchEnv(options, s)) {
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
      j.put("events", events);
      j.put("transport", env.transportName());
      j.put("database", env.description());
      j.put("machine", BenchReport.machine());
      if (options.json) {
        System.out.println(new ObjectMapper().writeValueAsString(j));
      } else {
        j.forEach((k, v) -> System.out.printf("  %-20s %s%n", k, v));
      }
      history.clear();
      return 0;
    }
  }
}
