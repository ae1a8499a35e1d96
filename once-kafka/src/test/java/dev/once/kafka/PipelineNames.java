package dev.once.kafka;

import java.util.concurrent.atomic.AtomicInteger;

/** Topic and group names no other test of this JVM (or another JVM) uses. */
final class PipelineNames {
  private static final AtomicInteger counter = new AtomicInteger();

  private PipelineNames() {}

  static String unique(String base) {
    return base + "-" + ProcessHandle.current().pid() + "-" + counter.incrementAndGet();
  }
}
