package dev.once.bench.e2e;

import dev.once.spi.Transport;
import java.io.PrintStream;

/**
 * The consumer's throughput alone: {@code events} orders are produced and relayed into the queue
 * first (relays then stop), then the consumer starts and the clock runs until it has committed the
 * last effect. Its outgoing events stay in the outbox.
 */
final class ConsumerOnly {
  private ConsumerOnly() {}

  static double run(BenchEnv env, BenchSettings s, PrintStream progress) throws Exception {
    try (Transport transport = env.openTransport()) {
      env.reset(transport);
      try (Pipeline p = new Pipeline(env.dataSource(), transport, s)) {
        Producers.fullSpeed(p, s, 1, s.events());
        p.startRelays();
        awaitRelayed(env, s);
        p.stopRelays();
        progress.printf("  %d events queued; consumer starts%n", s.events());
        long start = System.nanoTime();
        p.startConsumer();
        if (!p.awaitProcessed(s.events(), s.timeoutSeconds() * 1_000_000_000L)) {
          throw new IllegalStateException(
              "consumer processed only " + p.timings().processed() + " of " + s.events());
        }
        return s.events() / ((System.nanoTime() - start) / 1e9);
      } finally {
        env.reset(transport);
      }
    }
  }

  private static void awaitRelayed(BenchEnv env, BenchSettings s) throws InterruptedException {
    if (!BenchTables.awaitPublished(
        env.dataSource(), s.timeoutSeconds() * 1_000_000_000L, 100, BenchTables.IN)) {
      throw new IllegalStateException("relays did not publish the backlog in --timeout");
    }
  }
}
