package dev.once.app.bench;

import dev.once.app.common.Flags;
import dev.once.bench.e2e.BacklogBench;
import dev.once.bench.e2e.BenchSettings;
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
    return options.run(s, false, env -> BacklogBench.run(env, seconds, System.err));
  }
}
