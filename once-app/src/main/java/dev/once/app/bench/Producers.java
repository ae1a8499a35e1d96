package dev.once.app.bench;

import dev.once.app.scenario.Pacing;
import java.util.concurrent.atomic.AtomicLong;

/** Runs producer threads: at full speed in batches, or paced at a rate with one event each. */
final class Producers {
  private Producers() {}

  /** Commits orders [first, first + n) in transactions of {@code batch}; returns seconds taken. */
  static double fullSpeed(Pipeline p, BenchSettings s, long first, long n) throws Exception {
    AtomicLong next = new AtomicLong(first);
    long end = first + n;
    long start = System.nanoTime();
    run(
        s.producers(),
        () -> {
          for (long from = next.getAndAdd(s.producerBatch());
              from < end;
              from = next.getAndAdd(s.producerBatch())) {
            p.produce(from, Math.min(end, from + s.producerBatch()));
          }
        });
    return (System.nanoTime() - start) / 1e9;
  }

  /**
   * Commits orders [first, first + n), one per transaction, order i due at {@code start + i/rate};
   * a thread that falls behind commits at once. Returns the rate achieved (events/s).
   */
  static double paced(Pipeline p, BenchSettings s, long first, long n, double rate)
      throws Exception {
    AtomicLong next = new AtomicLong(0);
    long start = System.nanoTime();
    run(
        s.latencyProducers(),
        () -> {
          for (long i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
            Pacing.awaitTurn(start, i, rate);
            p.produce(first + i, first + i + 1);
          }
        });
    return n / ((System.nanoTime() - start) / 1e9);
  }

  private static void run(int threads, Runnable work) throws InterruptedException {
    Threads.run(threads, i -> work.run());
  }
}
