package dev.once.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.once.ConsumerBuilder;
import dev.once.app.Logging;
import dev.once.app.UserError;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
          + " latency of every order, then a paced run at half the sustained rate.",
      "Also measured in the same run: ceiling P (the same producers with nothing else running)"
          + " and ceiling C (a hand-written pipeline doing the same work without the library).",
      "See docs/PERFORMANCE.md, round 3."
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
          "Orders/s of the paced run; 0 means half of the sustained end-to-end rate"
              + " (default ${DEFAULT-VALUE}).")
  double latencyRate;

  @Option(
      names = "--warmup",
      defaultValue = "0",
      description =
          "Orders sent through each phase first, not measured, so that the JIT has compiled"
              + " their code; 0 for none (default ${DEFAULT-VALUE}).")
  int warmup;

  @Option(
      names = "--tracing",
      defaultValue = "off",
      description =
          "Once's tracing in the Once run (not the ceilings): off, on (every order traced) or"
              + " sampled (10 %% of orders); spans go to OpenTelemetry's batch processor and an"
              + " exporter that counts them (default ${DEFAULT-VALUE})")
  String tracingMode;

  @Option(
      names = "--batch-linger-ms",
      defaultValue = "-1",
      description =
          "Once's consumers' batch linger (ConsumerBuilder.batchLinger) in ms; -1 for Once's"
              + " default (default ${DEFAULT-VALUE}).")
  int batchLingerMs;

  @Override
  public Integer call() throws Exception {
    BenchSettings s = options.settings(events, latencySeconds, 1);
    if (hops != 1 && hops != 2) {
      throw new UserError("--hops must be 1 or 2, was " + hops);
    }
    if (latencyRate < 0) {
      throw new UserError(
          "--latency-rate must be 0 (half the sustained rate) or more, was " + latencyRate);
    }
    if (batchLingerMs < -1 || batchLingerMs > 1000) {
      throw new UserError(
          "--batch-linger-ms must be -1 (Once's default) or 0 to 1000, was " + batchLingerMs);
    }
    Duration linger =
        batchLingerMs < 0 ? ConsumerBuilder.DEFAULT_BATCH_LINGER : Duration.ofMillis(batchLingerMs);
    if (!List.of("off", "on", "sampled").contains(tracingMode)) {
      throw new UserError("--tracing must be off, on or sampled, was '" + tracingMode + "'");
    }
    if (warmup < 0) {
      throw new UserError("--warmup must be 0 (none) or more orders, was " + warmup);
    }
    Logging.quietEngine(true);
    PrintStream progress = System.err;
    try (BenchEnv env = new BenchEnv(options, s, true)) {
      progress.printf(
          "once bench e2e: %d orders, %d hop(s), on %s, transport %s%n",
          events, hops, env.description(), env.transportName());
      if (warmup > 0) {
        progress.printf("  warm-up: %d orders through each phase, not measured ...%n", warmup);
        BenchSettings w = options.settings(warmup, 0, 1);
        OnceE2e.ceilingP(env, w);
        ceilingC(env, w);
        OnceE2e.run(env, w, hops, 0, linger, new PrintStream(OutputStream.nullOutputStream()));
        env.rollbacks().clear();
      }
      progress.printf("  %s ceiling P: the producers alone ...%n", now());
      double p = OnceE2e.ceilingP(env, s);
      progress.printf("  %s ceiling P: %.0f orders/s%n", now(), p);
      progress.printf("  %s ceiling C: hand-written pipeline ...%n", now());
      Hand c = ceilingC(env, s);
      progress.printf("  %s ceiling C: %.0f orders/s%n", now(), c.eps());
      progress.printf("  %s Once end to end ...%n", now());
      OnceE2e.Result once;
      long spans;
      try (BenchTracing tracing = BenchTracing.of(tracingMode)) {
        OnceE2e.tracing = tracing;
        once = OnceE2e.run(env, s, hops, latencyRate, linger, progress);
        spans = tracing.exported();
      } finally {
        OnceE2e.tracing = BenchTracing.OFF;
      }
      progress.printf("  %s done%n", now());
      Map<String, Object> j = json(s, env, p, c, once);
      j.put("batch_linger_ms", linger.toMillis());
      j.put("tracing", tracingMode);
      j.put("spans_exported", spans);
      if (options.json) {
        System.out.println(new ObjectMapper().writeValueAsString(j));
      } else {
        j.forEach((k, v) -> System.out.printf("  %-28s %s%n", k, v));
      }
      return once.duplicateEffects() == 0 && c.duplicates() == 0 ? 0 : 1;
    }
  }

  record Hand(double eps, long[] latencies, long duplicates, long rollbacks) {}

  private Hand ceilingC(BenchEnv env, BenchSettings s) throws Exception {
    HandPipeline.Shape shape = hops == 2 ? HandPipeline.Shape.TWO_HOPS : HandPipeline.Shape.ONE_HOP;
    try (HandBroker broker = HandBroker.open(env, s)) {
      HandPipeline pipeline = new HandPipeline(env.dataSource(), broker, s, shape);
      try {
        double eps = pipeline.endToEnd();
        long[] latencies = pipeline.timings().latencies(1, s.events() + 1L);
        pipeline.close();
        return new Hand(eps, latencies, pipeline.duplicateEffects(), pipeline.conflicts());
      } finally {
        pipeline.close();
        BenchTables.reset(env.dataSource());
      }
    }
  }

  private Map<String, Object> json(
      BenchSettings s, BenchEnv env, double p, Hand c, OnceE2e.Result once) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("e2e_eps", BenchReport.round(once.eps()));
    j.put("ceiling_p_eps", BenchReport.round(p));
    j.put("ceiling_c_eps", BenchReport.round(c.eps()));
    j.put("ratio_c", BenchReport.round3(once.eps() / c.eps()));
    j.put("ratio_p", BenchReport.round3(once.eps() / p));
    j.put("p50_ms", ms(Percentiles.of(once.latencies(), 50)));
    j.put("p99_ms", ms(Percentiles.of(once.latencies(), 99)));
    j.put("max_ms", ms(max(once.latencies())));
    j.put("paced_rate_eps", BenchReport.round(once.pacedRate()));
    j.put("paced_events", once.pacedLatencies().length);
    j.put("paced_p50_ms", ms(Percentiles.of(once.pacedLatencies(), 50)));
    j.put("paced_p99_ms", ms(Percentiles.of(once.pacedLatencies(), 99)));
    j.put("paced_max_ms", ms(max(once.pacedLatencies())));
    j.put("ceiling_c_p50_ms", ms(Percentiles.of(c.latencies(), 50)));
    j.put("ceiling_c_p99_ms", ms(Percentiles.of(c.latencies(), 99)));
    j.put("effects", once.effects());
    j.put("duplicate_effects", once.duplicateEffects());
    j.put("ceiling_c_duplicate_effects", c.duplicates());
    j.put("once_rollbacks", env.rollbacks().once.get());
    j.put("ceiling_c_rollbacks", c.rollbacks());
    j.put("producer_rollbacks", Rollbacks.PRODUCERS.get());
    j.put("hops", hops);
    j.put("events", s.events());
    j.put("transport", env.transportName());
    j.put("database", env.description());
    j.put("workers", s.workers());
    j.put("batch", s.batch());
    j.put("relays", s.relays());
    j.put("relay_batch", s.relayBatch());
    j.put("producers", s.producers());
    j.put("producer_batch", s.producerBatch());
    j.put("latency_producers", s.latencyProducers());
    j.put("warmup_events", warmup);
    j.put("machine", BenchReport.machine());
    return j;
  }

  /** The time of day (UTC) in progress lines: to line them up with samples taken beside. */
  private static String now() {
    return java.time.LocalTime.now(java.time.ZoneOffset.UTC)
        .truncatedTo(java.time.temporal.ChronoUnit.MILLIS)
        .toString();
  }

  private static long max(long[] sorted) {
    return sorted.length == 0 ? 0 : sorted[sorted.length - 1];
  }

  private static double ms(long nanos) {
    return Math.round(nanos / 10_000.0) / 100.0;
  }
}
