package dev.once.app.bench;

import dev.once.ConsumerBuilder;
import dev.once.app.common.UserError;
import dev.once.bench.e2e.BenchSettings;
import dev.once.bench.e2e.BenchTracing;
import dev.once.bench.e2e.E2eBench;
import dev.once.bench.e2e.service.OrderService;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code once bench e2e}: Once end to end as a service runs it, against ceiling P (the producers
 * alone) and ceiling C (a hand-written pipeline doing the same work), in one run.
 */
@Command(
    name = "e2e",
    mixinStandardHelpOptions = true,
    description = {
      "End to end as a service runs it: --producers threads commit orders (--producer-batch per"
          + " transaction, default 1) while relays and consumers run, over one or two hops;"
          + " clock from the first producer commit to the last effect committed, commit->effect"
          + " latency of every order, then a paced run at a third of the sustained rate.",
      "Also measured in the same run: ceiling P (raw JDBC producers writing the same business"
          + " row and outbox row, nothing else running) beside Once's producers alone, and"
          + " ceiling C (a hand-written pipeline doing the same work without the library), full"
          + " speed and paced at Once's paced rate. --service adds the example service"
          + " (README defaults, a pool of its own) run in a JVM of its own.",
      "See docs/PERFORMANCE.md, \"What each bench measures\"."
    })
public final class E2eCommand implements Callable<Integer> {
  @Mixin BenchOptions options;

  @Option(
      names = "--events",
      defaultValue = "20000",
      description = "Orders per measurement (default ${DEFAULT-VALUE}).")
  int events;

  @Option(
      names = "--hops",
      defaultValue = "2",
      description =
          "1: the consumer writes its effect; 2: warehouse -> notifier, as the demo"
              + " (default ${DEFAULT-VALUE}).")
  int hops;

  @Option(
      names = "--latency-seconds",
      defaultValue = "10",
      description = "How long the paced run produces; 0 for none (default ${DEFAULT-VALUE}).")
  int latencySeconds;

  @Option(
      names = "--latency-rate",
      defaultValue = "0",
      description =
          "Orders/s of the paced runs; 0 means a third of the sustained end-to-end rate"
              + " (default ${DEFAULT-VALUE}).")
  double latencyRate;

  @Option(
      names = "--warmup",
      defaultValue = "0",
      description =
          "Orders of a warm-up round: each round sends them through every phase, not"
              + " measured, and rounds repeat until the JIT compiler is quiet (at most 40), so"
              + " that every phase is measured compiled; after each round the JIT gets at most"
              + " the round's time to compile what the round queued; 0 for none (default"
              + " ${DEFAULT-VALUE}).")
  int warmup;

  @Option(
      names = "--batch-linger-ms",
      defaultValue = "-1",
      description =
          "Once's consumers' batch linger (ConsumerBuilder.batchLinger) in ms; -1 for Once's"
              + " default (default ${DEFAULT-VALUE}).")
  int batchLingerMs;

  @Option(
      names = "--tracing",
      defaultValue = "off",
      description =
          "Once's tracing in the Once run (never the ceilings): off (none); request-only (a"
              + " tracer and a span around every producer transaction, the sampler keeps none, Once"
              + " not traced); sampled-out (the same, Once traced); sampled"
              + " (10 %% of orders, parent-based); on (every order). Spans go through"
              + " OpenTelemetry's batch processor to an exporter that counts them"
              + " (default ${DEFAULT-VALUE}).")
  String tracing;

  @Option(
      names = "--service",
      description =
          "Also run the example service (dev.once.bench.e2e.service.OrderService: README"
              + " defaults, a HikariCP pool sized as the README says) in a JVM of its own, warmed"
              + " up as the bench"
              + " (rounds of --warmup orders until its JIT compiler is quiet), and report it"
              + " beside Once and ceiling C.")
  boolean service;

  @Option(
      names = "--service-pool",
      defaultValue = "" + OrderService.POOL_SIZE,
      description =
          "The example service's HikariCP pool size with --service (default ${DEFAULT-VALUE},"
              + " as the README sizes a pool for 4 producers, 4 workers and 2 relays).")
  int servicePool;

  @Option(
      names = "--service-only",
      description =
          "Run only the example service (its own warm-up, full-speed and paced runs; --latency-rate"
              + " 0 paces it at a third of its own rate).")
  boolean serviceOnly;

  @Override
  public Integer call() throws Exception {
    if (!BenchTracing.MODES.contains(tracing)) {
      throw new UserError(
          "--tracing must be one of "
              + String.join(", ", BenchTracing.MODES)
              + ", was '"
              + tracing
              + "'");
    }
    BenchSettings s = options.settings(events, latencySeconds, 1);
    if (hops != 1 && hops != 2) {
      throw new UserError("--hops must be 1 or 2, was " + hops);
    }
    if (latencyRate < 0) {
      throw new UserError(
          "--latency-rate must be 0 (a third of the sustained rate) or more, was " + latencyRate);
    }
    if (batchLingerMs < -1 || batchLingerMs > 1000) {
      throw new UserError(
          "--batch-linger-ms must be -1 (Once's default) or 0 to 1000, was " + batchLingerMs);
    }
    Duration linger =
        batchLingerMs < 0 ? ConsumerBuilder.DEFAULT_BATCH_LINGER : Duration.ofMillis(batchLingerMs);
    if (warmup < 0) {
      throw new UserError("--warmup must be 0 (none) or more orders, was " + warmup);
    }
    if (servicePool < 1 || servicePool > 200) {
      throw new UserError("--service-pool must be between 1 and 200, was " + servicePool);
    }
    if (serviceOnly) {
      return options.run(
          s, true, env -> E2eBench.serviceOnly(env, warmup, latencyRate, servicePool));
    }
    int pool = service ? servicePool : 0;
    return options.run(
        s,
        true,
        env -> E2eBench.run(env, hops, latencyRate, linger, warmup, tracing, pool, System.err));
  }
}
