package dev.once.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A measured paced run starts once the JIT's queue is empty, and reports the wait, what it compiled
 * and whether a paced run warmed it.
 */
class PacedJitTest {
  @Test
  void waitsUntilTheQueueIsEmptyThenCountsWhatTheRunCompiles() throws Exception {
    AtomicInteger queued = new AtomicInteger(3); // drains by one per look
    AtomicLong compiled = new AtomicLong(1_000);
    JitWarmup.Jit jit = JitWarmup.jit(compiled::get, () -> Math.max(0, queued.getAndDecrement()));
    PacedJit paced = PacedJit.settle("paced_", true, jit, 5_000_000_000L);
    assertThat(queued.get()).isLessThanOrEqualTo(0);
    compiled.addAndGet(250); // the paced run compiles 250 ms
    Map<String, Double> f = paced.figures();
    assertThat(f).containsOnlyKeys("paced_warmed", "paced_jit_wait_s", "paced_jit_ms");
    assertThat(f.get("paced_warmed")).isEqualTo(1.0);
    assertThat(f.get("paced_jit_wait_s")).isGreaterThanOrEqualTo(0.06); // 3 looks of 20 ms
    assertThat(f.get("paced_jit_ms")).isEqualTo(250.0);
  }

  @Test
  void aJitThatNeverDrainsCostsTheLimitNotTheRun() throws Exception {
    JitWarmup.Jit busy = JitWarmup.jit(() -> 0, () -> 7);
    long t0 = System.nanoTime();
    PacedJit paced = PacedJit.settle("ceiling_c_paced_", false, busy, 100_000_000L);
    assertThat(System.nanoTime() - t0).isBetween(100_000_000L, 2_000_000_000L);
    assertThat(paced.figures().get("ceiling_c_paced_jit_wait_s")).isBetween(0.1, 2.0);
    assertThat(paced.figures().get("ceiling_c_paced_warmed")).isEqualTo(0.0);
  }
}
