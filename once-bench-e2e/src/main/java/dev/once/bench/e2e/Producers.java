package dev.once.bench.e2e;

import dev.once.scenario.Pacing;
import java.util.concurrent.atomic.AtomicLong;

/** Runs producer threads: at full speed in batches, or paced at a rate with one event each. */
final class Producers {
  /** One producer transaction committing the orders [from, to). */
  interface Produce {
    void commit(long from, long to) throws Exception;
  }

  private Producers() {}

  /**
   * One producer transaction; run again (at most 10 times) when the database rolled it back for a
   * deadlock or a lock wait timeout, as a service would — on MariaDB, InnoDB's duplicate-key checks
   * on the outbox's unique event id lock ranges when a deleted row of the same id is not purged yet
   * (a bench phase reuses the ids of the one before). Counted in {@link Rollbacks#PRODUCERS}.
   */
  private static void commit(Produce p, long from, long to) throws Exception {
    for (int attempt = 0; ; attempt++) {
      try {
        p.commit(from, to);
        return;
      } catch (Exception e) {
        if (attempt == 10 || !isConflict(e)) {
          throw e;
        }
        Rollbacks.PRODUCERS.incrementAndGet();
      }
    }
  }

  private static boolean isConflict(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.sql.SQLException sql && Rollbacks.isConflict(sql)) {
        return true;
      }
    }
    return false;
  }

  /** One producer transaction committing {@code orders[from, to)}, in that order. */
  interface ProduceOwned {
    void commit(long[] orders, int from, int to) throws Exception;
  }

  /**
   * Commits, on each of {@code threads} threads, the orders {@code owned} gives that thread's
   * index, in that order, {@code batch} per transaction: a thread starts its next transaction after
   * its last one committed, so the orders a thread owns commit in its order. Returns seconds taken.
   */
  static double owned(
      ProduceOwned p, int threads, int batch, java.util.function.IntFunction<long[]> owned)
      throws Exception {
    long start = System.nanoTime();
    Threads.run(
        threads,
        t -> {
          long[] orders = owned.apply(t);
          for (int from = 0; from < orders.length; from += batch) {
            int to = Math.min(orders.length, from + batch);
            commit((a, b) -> p.commit(orders, (int) a, (int) b), from, to);
          }
        });
    return (System.nanoTime() - start) / 1e9;
  }

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
            commit(p, from, Math.min(end, from + batch));
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
            commit(p, first + j, first + j + 1);
          }
        });
    return n / ((System.nanoTime() - start) / 1e9);
  }
}
