package dev.once.bench.e2e;

import dev.once.spi.Transport;
import java.io.PrintStream;

/**
 * Once end to end. Sustained rate: {@code events} orders are first committed to the outbox by the
 * producers (relays stopped), then relays and the consumer start and the clock runs until the
 * consumer has committed the last effect and the relays have published the last outgoing event.
 * Latency: with everything running and idle, producers commit one order per transaction at half
 * that rate for {@code latencySeconds}; each event's latency is the consumer's commit minus the
 * producer's commit.
 */
final class OnceRun {
  record Result(
      double producerEps,
      double onceEps,
      double pacedRate,
      long latencyEvents,
      double p50Ms,
      double p99Ms,
      double maxMs,
      double relayP50Ms,
      double relayP99Ms,
      long effects,
      long distinctEffects) {}

  private final BenchEnv env;
  private final BenchSettings s;
  private final double latencyRate;
  private final PrintStream progress;

  /** {@code latencyRate} 0: half of the sustained rate. */
  OnceRun(BenchEnv env, BenchSettings s, double latencyRate, PrintStream progress) {
    this.env = env;
    this.s = s;
    this.latencyRate = latencyRate;
    this.progress = progress;
  }

  Result run() throws Exception {
    try (Transport transport = env.openTransport()) {
      env.reset(transport);
      try (Pipeline p = new Pipeline(env.dataSource(), transport, s, env.rollbacks())) {
        double producerSeconds = Producers.fullSpeed(p, s, 1, s.events());
        double producerEps = s.events() / producerSeconds;
        progress.printf("  producers committed %d events in %.1f s%n", s.events(), producerSeconds);
        long start = System.nanoTime();
        p.startConsumer();
        p.startRelays();
        await(p, s.events());
        // the consumer's outgoing events are part of the work: the clock stops when they are out
        // too, so the paced run below starts with an idle pipeline, not behind a relay backlog
        awaitPublished();
        double onceEps = s.events() / ((System.nanoTime() - start) / 1e9);
        double rate = latencyRate > 0 ? latencyRate : onceEps / 2;
        progress.printf("  once: %.0f events/s; latency at %.0f events/s%n", onceEps, rate);
        Result latency = latency(p, rate);
        return new Result(
            producerEps,
            onceEps,
            latency.pacedRate(),
            latency.latencyEvents(),
            latency.p50Ms(),
            latency.p99Ms(),
            latency.maxMs(),
            latency.relayP50Ms(),
            latency.relayP99Ms(),
            BenchTables.count(env.dataSource(), "SELECT count(*) FROM bench_effects"),
            BenchTables.count(
                env.dataSource(), "SELECT count(DISTINCT event_id) FROM bench_effects"));
      } finally {
        env.reset(transport);
      }
    }
  }

  private Result latency(Pipeline p, double rate) throws Exception {
    long n = Math.round(rate * s.latencySeconds());
    if (n == 0) {
      return new Result(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }
    p.timings().recording(true);
    double achieved = Producers.paced(p, s, s.events() + 1L, n, rate);
    await(p, s.events() + n);
    p.timings().recording(false);
    long[] nanos = p.timings().latencies();
    long[] relay = p.timings().relayLatencies();
    return new Result(
        0,
        0,
        achieved,
        nanos.length,
        ms(Percentiles.of(nanos, 50)),
        ms(Percentiles.of(nanos, 99)),
        ms(nanos.length == 0 ? 0 : nanos[nanos.length - 1]),
        ms(Percentiles.of(relay, 50)),
        ms(Percentiles.of(relay, 99)),
        0,
        0);
  }

  private void awaitPublished() throws InterruptedException {
    if (!BenchTables.awaitPublished(
        env.dataSource(),
        s.timeoutSeconds() * 1_000_000_000L,
        5,
        BenchTables.IN,
        BenchTables.OUT)) {
      throw new IllegalStateException(
          "relays did not publish the outgoing events in " + s.timeoutSeconds() + " s (--timeout)");
    }
  }

  private void await(Pipeline p, long n) throws InterruptedException {
    if (!p.awaitProcessed(n, s.timeoutSeconds() * 1_000_000_000L)) {
      throw new IllegalStateException(
          "Once processed only "
              + p.timings().processed()
              + " of "
              + n
              + " events in "
              + s.timeoutSeconds()
              + " s (--timeout)");
    }
  }

  private static double ms(long nanos) {
    return Math.round(nanos / 10_000.0) / 100.0;
  }
}
