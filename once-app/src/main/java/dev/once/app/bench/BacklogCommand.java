package dev.once.app.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.once.app.Flags;
import dev.once.app.Logging;
import dev.once.spi.Transport;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code once bench backlog}: the heap while a large backlog drains. The outbox is filled by the
 * bench's producers through {@code tx.publish} (so every row is written as Once writes it, its key
 * partition included) before any relay or consumer runs; then the pipeline starts and the heap is
 * sampled after a GC every second. Nothing may load a backlog into memory, so the peak must not
 * grow with the backlog.
 */
@Command(
    name = "backlog",
    mixinStandardHelpOptions = true,
    description = {
      "Heap used (after GC, sampled every second) while --events outbox rows drain through the"
          + " pipeline, for at most --seconds."
    })
public final class BacklogCommand implements Callable<Integer> {
  @Mixin BenchOptions options;

  @Option(
      names = "--events",
      defaultValue = "1000000",
      description = "Backlogged outbox rows (default ${DEFAULT-VALUE}).")
  int events;

  @Option(
      names = "--seconds",
      defaultValue = "120",
      description = "Longest time to sample while it drains (default ${DEFAULT-VALUE}).")
  int seconds;

  @Override
  public Integer call() throws Exception {
    Flags.atLeast("--seconds", seconds, 1);
    BenchSettings s = options.settings(events, 0);
    Logging.quietEngine(true);
    PrintStream progress = System.err;
    try (BenchEnv env = new BenchEnv(options, s);
        Transport transport = env.openTransport()) {
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
      if (options.json) {
        System.out.println(new ObjectMapper().writeValueAsString(j));
      } else {
        j.forEach((k, v) -> System.out.printf("  %-16s %s%n", k, v));
      }
      return 0;
    }
  }

  private static double mb(long bytes) {
    return BenchReport.round(bytes / 1048576.0);
  }
}
