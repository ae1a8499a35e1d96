package dev.once.app.bench;

import dev.once.app.common.UserError;
import dev.once.bench.e2e.BenchSettings;
import dev.once.bench.e2e.TracingBench;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code once bench tracing}: tracing's cost to Once's end-to-end pipeline, in one run. */
@Command(
    name = "tracing",
    mixinStandardHelpOptions = true,
    description = {
      "Tracing's cost, in one run: Once's end-to-end pipeline of 'once bench e2e' (no ceilings)"
          + " with each --modes, --warmup orders each first, then --rounds rounds"
          + " that run every mode once, their order turned by one each round (A B C D, B C D A,"
          + " ...); after each full-speed run a paced one at --paced-rate. Per mode (medians over"
          + " rounds): orders/s and its ratio to 'off' and to 'request-only' in the same round"
          + " (and in how many rounds it was the slower); CPU time per order of the bench's JVM,"
          + " of the database server (when it runs on this machine) and of both, and the latter's"
          + " ratio to 'off' and 'request-only' in the same round, full speed and paced; WAL"
          + " bytes, relay batches and consumer transactions per order; paced: the same costs"
          + " and commit->effect latency p50/p99.",
      "Modes: off (none); request-only (a tracer and a span around every producer transaction,"
          + " the sampler keeps none, Once not traced: the application's share); sampled-out (the"
          + " same with Once traced); sampled (10 %% of orders, parent-based); on (every order);"
          + " sampled-out-no-context (as sampled-out, Once's tracing without the unsampled"
          + " context: what storing it costs; not in the default list)."
          + " Spans go through OpenTelemetry's batch processor to an exporter that counts them.",
      "See docs/PERFORMANCE.md, \"Tracing's cost end to end\"."
    })
public final class TracingCommand implements Callable<Integer> {
  @Mixin BenchOptions options;

  @Option(
      names = "--events",
      defaultValue = "3000",
      description = "Orders per run (default ${DEFAULT-VALUE}).")
  int events;

  @Option(
      names = "--hops",
      defaultValue = "2",
      description = "1 or 2 hops, as 'once bench e2e' (default ${DEFAULT-VALUE}).")
  int hops;

  @Option(
      names = "--modes",
      defaultValue = "off,request-only,sampled-out,sampled,on",
      description = "The tracing modes compared, comma separated (default ${DEFAULT-VALUE}).")
  String modes;

  @Option(
      names = "--rounds",
      defaultValue = "4",
      description = "Rounds of every mode (default ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--warmup",
      defaultValue = "1000",
      description = "Orders through each mode first, not measured (default ${DEFAULT-VALUE}).")
  int warmup;

  @Option(
      names = "--paced-rate",
      defaultValue = "200",
      description =
          "Orders/s of the paced run after each full-speed one, the same for every mode, so that"
              + " CPU per order and latency compare at one load (default ${DEFAULT-VALUE}).")
  double pacedRate;

  @Option(
      names = "--paced-seconds",
      defaultValue = "5",
      description = "How long each paced run produces; 0 for none (default ${DEFAULT-VALUE}).")
  int pacedSeconds;

  @Override
  public Integer call() throws Exception {
    List<String> list;
    try {
      list = TracingBench.checkedModes(modes);
    } catch (IllegalArgumentException e) {
      throw new UserError(e.getMessage());
    }
    if (hops != 1 && hops != 2) {
      throw new UserError("--hops must be 1 or 2, was " + hops);
    }
    if (rounds < 1 || rounds > 100) {
      throw new UserError("--rounds must be between 1 and 100, was " + rounds);
    }
    if (warmup < 0) {
      throw new UserError("--warmup must be 0 (none) or more orders, was " + warmup);
    }
    if (pacedSeconds < 0 || pacedSeconds > 600) {
      throw new UserError("--paced-seconds must be between 0 and 600, was " + pacedSeconds);
    }
    if (pacedSeconds > 0 && !(pacedRate > 0)) {
      throw new UserError("--paced-rate must be more than 0 orders/s, was " + pacedRate);
    }
    BenchSettings s = options.settings(events, pacedSeconds, 1);
    TracingBench.Paced paced = new TracingBench.Paced(pacedRate, pacedSeconds);
    return options.run(
        s, true, env -> TracingBench.run(env, hops, list, rounds, warmup, paced, System.err));
  }
}
