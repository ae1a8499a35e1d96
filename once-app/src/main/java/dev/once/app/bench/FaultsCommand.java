package dev.once.app.bench;

import dev.once.app.common.UserError;
import dev.once.bench.e2e.BenchSettings;
import dev.once.bench.e2e.FaultsBench;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code once bench faults}: throughput under crashes and cuts over throughput without. */
@Command(
    name = "faults",
    mixinStandardHelpOptions = true,
    description = {
      "Recovery throughput: the two-hop pipeline of 'bench e2e' drains --events orders once per"
          + " phase, in one run: without faults, at each --crash-rates crash rate (consumer and"
          + " relay windows, as the demo injects them), then with every connection of Once's"
          + " RabbitMQ transport cut through a TCP proxy, a second Kafka consumer joining and"
          + " leaving the group, or (SQS) every connection of the SDK cut or the endpoint stalled"
          + " for 3 s in turn through a TCP proxy, each time the pipeline has worked for --fault-interval-ms since it"
          + " recovered from the last such fault.",
      "Prints faults_ratio = throughput under faults / throughput without, per phase, and the"
          + " duplicate effects counted in the tables (exit 1 if any). See docs/PERFORMANCE.md.",
      "With --ordered the orders share keys (about 10 steps a key; each key belongs to one"
          + " producer thread, which commits its steps in order) and every phase counts the"
          + " first hop's effects out of their key's order, out_of_order: a decrease, a repeat or"
          + " a gap (exit 1 if any). Without --ordered order is not checked and not reported."
    })
public final class FaultsCommand implements Callable<Integer> {
  @Mixin BenchOptions options;

  @Option(
      names = "--events",
      defaultValue = "5000",
      description = "Orders per phase (default ${DEFAULT-VALUE}).")
  int events;

  @Option(
      names = "--crash-rates",
      split = ",",
      defaultValue = "0,0.05,0.1,0.2",
      description =
          "Crash rates, the first 0: one chance per window per unit of work (default"
              + " ${DEFAULT-VALUE}).")
  List<Double> crashRates;

  @Option(
      names = "--seed",
      defaultValue = "22",
      description = "Decides which units of work crash (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--fault-interval-ms",
      defaultValue = "2000",
      description =
          "How long the pipeline works, after it committed an effect again, before the next"
              + " cut (RabbitMQ), consumer join or leave (Kafka), cut or stall (SQS) (default"
              + " ${DEFAULT-VALUE}).")
  int intervalMs;

  @Option(
      names = "--warmup",
      defaultValue = "2000",
      description =
          "Orders sent through the pipeline first, without faults and not measured; 0 for none"
              + " (default ${DEFAULT-VALUE}).")
  int warmup;

  @Override
  public Integer call() throws Exception {
    BenchSettings s = options.settings(events, 0, 1);
    if (intervalMs < 100 || intervalMs > 600_000) {
      throw new UserError("--fault-interval-ms must be between 100 and 600000, was " + intervalMs);
    }
    FaultsBench.checkRates(crashRates); // before the database is opened
    if (warmup < 0) {
      throw new UserError("--warmup must be 0 (none) or more orders, was " + warmup);
    }
    return options.run(
        s,
        true,
        env ->
            FaultsBench.run(
                env, crashRates, seed, Duration.ofMillis(intervalMs), warmup, System.err));
  }
}
