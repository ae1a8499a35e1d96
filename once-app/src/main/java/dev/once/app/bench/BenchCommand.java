package dev.once.app.bench;

import dev.once.app.common.UserError;
import dev.once.bench.e2e.BenchSettings;
import dev.once.bench.e2e.DrainBench;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code once bench}: Once against the same machine's ceilings, in one run. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    subcommands = {
      MarkersCommand.class,
      TracingCommand.class,
      BacklogCommand.class,
      E2eCommand.class,
      FaultsCommand.class,
      ParkedKeyCommand.class
    },
    description = {
      "Measures, on the same database and broker: ceiling A (the consumer's SQL alone, raw JDBC),"
          + " ceiling B (the broker alone), and Once end to end; prints Once/A and Once/B and"
          + " commit->consumed latency p50/p99 at half of Once's sustained rate.",
      "See docs/PERFORMANCE.md for what each figure means."
    })
public final class BenchCommand implements Callable<Integer> {
  @Mixin BenchOptions options;

  @Option(
      names = "--events",
      defaultValue = "20000",
      description = "Events per measurement (default ${DEFAULT-VALUE}).")
  int events;

  @Option(
      names = "--latency-seconds",
      defaultValue = "10",
      description = "How long the paced latency run produces (default ${DEFAULT-VALUE}).")
  int latencySeconds;

  @Option(
      names = "--latency-rate",
      defaultValue = "0",
      description =
          "Events/s of the paced latency run; 0 means half of the sustained rate measured just"
              + " before (default ${DEFAULT-VALUE}).")
  double latencyRate;

  @Option(
      names = "--warmup",
      defaultValue = "0",
      description =
          "Events sent through each phase first, not measured, so that the JIT has compiled"
              + " their code before the clock runs, e.g. 5000; 0 for none (default"
              + " ${DEFAULT-VALUE}).")
  int warmup;

  @Override
  public Integer call() throws Exception {
    BenchSettings s = options.settings(events, latencySeconds);
    if (latencyRate < 0) {
      throw new UserError(
          "--latency-rate must be 0 (half the sustained rate) or more, was " + latencyRate);
    }
    if (warmup < 0) {
      throw new UserError("--warmup must be 0 (none) or more events, was " + warmup);
    }
    return options.run(s, true, env -> DrainBench.run(env, latencyRate, warmup, System.err));
  }
}
