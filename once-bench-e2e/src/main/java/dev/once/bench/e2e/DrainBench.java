package dev.once.bench.e2e;

import java.io.OutputStream;
import java.io.PrintStream;

/**
 * {@code once bench}: ceiling A (the consumer's SQL alone, raw JDBC), ceiling B (the broker alone),
 * ceiling C (a hand-written pipeline) and Once draining the same backlog, in one run.
 */
public final class DrainBench {
  private DrainBench() {}

  /**
   * Runs the phases on {@code env}; {@code latencyRate} 0 paces the latency run at half of Once's
   * sustained rate; {@code warmup} events go through each phase first, not measured.
   */
  public static BenchResult run(BenchEnv env, double latencyRate, int warmup, PrintStream progress)
      throws Exception {
    BenchSettings s = env.settings();
    progress.printf(
        "once bench: %d events on %s, transport %s%n",
        s.events(), env.description(), env.transportName());
    if (warmup > 0) {
      progress.printf("  warm-up: %d events through each phase, not measured ...%n", warmup);
      BenchSettings w = s.with(warmup, 0);
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
    return new BenchReport(
        s, env.description(), env.transportName(), a, b, c, once, warmup, env.rollbacks());
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
      case "sqs", "sqs-fifo" -> CeilingSqs.run(env.sqsRequests().client(), env.sqsFifo(), s);
      default -> CeilingTableQueue.run(env.dataSource(), s);
    };
  }
}
