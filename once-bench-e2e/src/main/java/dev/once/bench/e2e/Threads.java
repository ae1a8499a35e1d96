package dev.once.bench.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Runs work on n threads, each told its index, and rethrows the first failure. */
final class Threads {
  interface Work {
    void run(int index) throws Exception;
  }

  private Threads() {}

  static void run(int n, Work work) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int index = i;
        futures.add(
            pool.submit(
                () -> {
                  work.run(index);
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        try {
          f.get();
        } catch (ExecutionException e) {
          throw new IllegalStateException("bench thread failed: " + e.getCause(), e.getCause());
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
