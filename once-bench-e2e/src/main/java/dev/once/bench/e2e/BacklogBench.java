package dev.once.bench.e2e;

import dev.once.spi.Transport;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code once bench backlog}: the heap while a large backlog drains. The outbox is filled by the
 * bench's producers through {@code tx.publish} (so every row is written as Once writes it, its key
 * partition included) before any relay or consumer runs; then the pipeline starts and the heap is
 * sampled after a GC every second. Nothing may load a backlog into memory, so the peak must not
 * grow with the backlog.
 */
public final class BacklogBench {
  private BacklogBench() {}

  /**
   * Fills the outbox with the settings' events, then samples the heap for at most {@code seconds}.
   */
  public static BenchResult run(BenchEnv env, int seconds, PrintStream progress) throws Exception {
    BenchSettings s = env.settings();
    int events = s.events();
    try (Transport transport = env.openTransport()) {
      env.reset(transport);
      long processed;
      long baseline;
      long start;
      HeapSampler heap = new HeapSampler();
      try (Pipeline p = new Pipeline(env.dataSource(), transport, s)) {
        double took = Producers.fullSpeed(p, s, 1, events);
        progress.printf("  %d outbox rows written in %.0f s%n", events, took);
        heap.sample();
        baseline = heap.maxUsed();
        start = System.nanoTime();
        p.startConsumer();
        p.startRelays();
        long deadline = start + seconds * 1_000_000_000L;
        while (p.timings().processed() < events && System.nanoTime() < deadline) {
          Thread.sleep(1000);
          heap.sample();
        }
        processed = p.timings().processed();
      } finally {
        env.reset(transport);
      }
      double took = (System.nanoTime() - start) / 1e9;
      Map<String, Object> j = new LinkedHashMap<>();
      j.put("backlog", events);
      j.put("processed", processed);
      j.put("seconds", BenchReport.round(took));
      j.put("eps", BenchReport.round(processed / took));
      j.put("heap_before_mb", mb(baseline));
      j.put("heap_max_used_mb", mb(heap.maxUsed()));
      j.put("heap_samples", heap.samples());
      j.put("transport", env.transportName());
      j.put("database", env.description());
      j.put("machine", BenchReport.machine());
      return new BenchResult.Fields(j, 16, true);
    }
  }

  private static double mb(long bytes) {
    return BenchReport.round(bytes / 1048576.0);
  }
}
