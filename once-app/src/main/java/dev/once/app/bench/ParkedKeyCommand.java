package dev.once.app.bench;

import dev.once.app.common.Flags;
import dev.once.app.common.UserError;
import dev.once.bench.e2e.BenchSettings;
import dev.once.bench.e2e.ParkedKeyBench;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code once bench parked-key}: an ordered consumer's other keys with and without one parked key
 * in the stream ({@link ParkedKeyBench}).
 */
@Command(
    name = "parked-key",
    mixinStandardHelpOptions = true,
    description = {
      "What one parked key costs an ordered consumer's other keys (table queue): the same backlog"
          + " of --events orders of distinct keys, with one more key's --behind events spread"
          + " among them, drained by an ordered consumer, clean and with that key's head poisoned"
          + " (dead-lettered at once, so its key parks with the rest behind it), --rounds times"
          + " each, alternating. Prints, for the other keys only, the drain rate and the paced"
          + " commit->effect p50/p99, per run and as medians, and the parked key's waiting"
          + " events."
    })
public final class ParkedKeyCommand implements Callable<Integer> {
  @Mixin BenchOptions options;

  @Option(
      names = "--events",
      defaultValue = "5000",
      description = "Orders of distinct keys per run (default ${DEFAULT-VALUE}).")
  int events;

  @Option(
      names = "--behind",
      defaultValue = "1000",
      description = "Events of the parked key behind its head (default ${DEFAULT-VALUE}).")
  int behind;

  @Option(
      names = "--rounds",
      defaultValue = "5",
      description = "Clean and poisoned runs of each (default ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--latency-seconds",
      defaultValue = "10",
      description = "How long each paced latency run produces (default ${DEFAULT-VALUE}).")
  int latencySeconds;

  @Option(
      names = "--latency-rate",
      defaultValue = "0",
      description =
          "Events/s of the paced latency runs; 0 means half of the first clean run's drain rate"
              + " (default ${DEFAULT-VALUE}).")
  double latencyRate;

  @Override
  public Integer call() throws Exception {
    Flags.range("--rounds", rounds, 1, 100);
    Flags.range("--behind", behind, 1, events);
    if (latencyRate < 0) {
      throw new UserError(
          "--latency-rate must be 0 (half the clean drain rate) or more, was " + latencyRate);
    }
    options.ordered = true; // the bench is about an ordered consumer
    BenchSettings s = options.settings(events, latencySeconds);
    return options.run(
        s, false, env -> ParkedKeyBench.run(env, rounds, behind, latencyRate, System.err));
  }
}
