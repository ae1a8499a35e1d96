package dev.once.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.once.app.Logging;
import dev.once.app.UserError;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code once bench}: Once against the same machine's ceilings, in one run. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    subcommands = {MarkersCommand.class, BacklogCommand.class, E2eCommand.class},
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
    Logging.quietEngine(true);
    PrintStream progress = System.err;
    try (BenchEnv env = new BenchEnv(options, s, true)) {
      progress.printf(
          "once bench: %d events on %s, transport %s%n",
          events, env.description(), env.transportName());
      if (warmup > 0) {
        progress.printf("  warm-up: %d events through each phase, not measured ...%n", warmup);
        BenchSettings w = options.settings(warmup, 0);
        CeilingDb.run(env.dataSource(), w, env.rollbacks().ceilingA);
        ceilingB(env, w);
        ceilingC(env, w);
        new OnceRun(env, w, 0, new PrintStream(OutputStream.nullOutputStream())).run();
        env.rollbacks().clear();
      }
      progress.println("  ceiling A: the consumer's SQL alone ...");
      double a = CeilingDb.run(env.dataSource(), s, env.rollbacks().ceilingA);
      progress.printf("  ceiling A: %.0f events/s%n  ceiling B: the broker alone ...%n", a);
      double b = ceilingB(env, s);
      progress.printf("  ceiling B: %.0f events/s%n  ceiling C: hand-written pipeline ...%n", b);
      double c = ceilingC(env, s);
      progress.printf("  ceiling C: %.0f events/s%n  Once end to end ...%n", c);
      OnceRun.Result once = new OnceRun(env, s, latencyRate, progress).run();
      BenchReport report =
          new BenchReport(
              s, env.description(), env.transportName(), a, b, c, once, warmup, env.rollbacks());
      if (options.json) {
        System.out.println(new ObjectMapper().writeValueAsString(report.toJson()));
      } else {
        report.print(System.out);
      }
      return report.ok() ? 0 : 1;
    }
  }

  /**
   * Ceiling C of the drain: the hand-written pipeline doing the same work as Once's run below
   * (backlog committed first, then relays and consumer; the consumer's outgoing events published to
   * a queue nobody reads).
   */
  static double ceilingC(BenchEnv env, BenchSettings s) throws Exception {
    try (HandBroker broker = HandBroker.open(env, s)) {
      HandPipeline pipeline =
          new HandPipeline(env.dataSource(), broker, s, HandPipeline.Shape.DRAIN);
      try {
        double eps = pipeline.drain();
        env.rollbacks().ceilingC.addAndGet(pipeline.conflicts());
        return eps;
      } finally {
        pipeline.close();
        broker.purge(BenchTables.C_OUT, BenchTables.SINK);
        BenchTables.reset(env.dataSource());
      }
    }
  }

  private static double ceilingB(BenchEnv env, BenchSettings s) throws Exception {
    return switch (env.transportName()) {
      case "rabbitmq" -> CeilingRabbit.run(env.amqp(), s);
      case "kafka" -> CeilingKafka.run(env.bootstrap(), env.kafkaPartitions(), s);
      default -> CeilingTableQueue.run(env.dataSource(), s);
    };
  }
}
