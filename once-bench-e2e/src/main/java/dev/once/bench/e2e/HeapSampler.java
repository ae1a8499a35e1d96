package dev.once.bench.e2e;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/** Heap used right after a full GC: what the process really holds, not garbage waiting. */
final class HeapSampler {
  private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
  private long maxUsed;
  private int samples;

  void sample() {
    memory.gc();
    maxUsed = Math.max(maxUsed, memory.getHeapMemoryUsage().getUsed());
    samples++;
  }

  long maxUsed() {
    return maxUsed;
  }

  int samples() {
    return samples;
  }
}
