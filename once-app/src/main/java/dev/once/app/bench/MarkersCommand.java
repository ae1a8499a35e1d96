package dev.once.app.bench;

import dev.once.app.common.Flags;
import dev.once.bench.e2e.BenchSettings;
import dev.once.bench.e2e.MarkersBench;
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
    return options.run(s, false, env -> MarkersBench.run(env, markers, System.err));
  }
}
