package dev.once.app.bench;

import dev.once.app.scenario.Pacing;
import java.util.concurrent.atomic.AtomicLong;

/** Runs producer threads: at full speed in batches, or paced at a rate with one event each. */
final class Producers {
  /** One producer transaction committing the orders [from, to). */
  interface Produce {
    void commit(long from, long to) throws Exception;
  }

  private Producers() {}

  static double fullSpeed(Pipeline p, BenchSettings s, long first, long n) throws Exception {
    return fullSpeed(p::produce, s.producers(), s.producerBatch(), first, n);
  }

  static double paced(Pipeline p, BenchSettings s, long first, long n, double rate)
      throws Exception {
    return paced(p::produce, s.latencyProducers(), first, n, rate);
  }

  /** Commits orders [first, first + n) in transactions of {@code batch}; returns seconds taken. */
  static double fullSpeed(Produce p, int threads, int batch, long first, long n) throws Exception {
    AtomicLong next = new AtomicLong(first);
    long end = first + n;
    long start = System.nanoTime();
    Threads.run(
        threads,
        i -> {
          for (long from = next.getAndAdd(batch); from < end; from = next.getAndAdd(batch)) {
            p.commit(from, Math.min(end, from + batch));
          }
        });
    return (System.nanoTime() - start) / 1e9;
  }

  /**
   * Commits orders [first, first + n), one per transaction, order i due at {@code start + i/rate};
   * a thread that falls behind commits at once. Returns the rate achieved (events/s).
   */
  static double paced(Produce p, int threads, long first, long n, double rate) throws Exception {
    AtomicLong next = new AtomicLong(0);
    long start = System.nanoTime();
    Threads.run(
        threads,
        i -> {
          for (long j = next.getAndIncrement(); j < n; j = next.getAndIncrement()) {
            Pacing.awaitTurn(start, j, rate);
            p.commit(first + j, first + j + 1);
          }
        });
    return n / ((System.nanoTime() - start) / 1e9);
  }
}
