package dev.once.bench.e2e;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The JIT around a paced run. Before it, the run waits (at most {@link #LIMIT_NANOS}) until the JIT
 * has compiled what the full-speed run before it queued; after it, the time waited and the time the
 * JIT compiled during the run are reported under the run's prefix ({@code paced_}, {@code
 * ceiling_c_paced_}, {@code service_paced_}).
 *
 * <p>Without the wait the paced runs did not start even: Once's paced run came right after its
 * full-speed run, and the JIT was still compiling what that run made hot (0.4–1.6 s of compiling in
 * Once's runs on RabbitMQ) on the same two cores, while ceiling C's paced run came later, its JVM's
 * hot code compiled. Session 12's RabbitMQ runs read paced p50 / C 2.70, 1.82 and 1.31 with 1.6 s
 * of compiling during Once's runs, 1.57, 1.31, 1.29, 0.96 and 0.83 with 0.4–0.6 s.
 */
final class PacedJit {
  /** The longest a paced run waits for the JIT: a run's queue drains in 0–3 s on two busy cores. */
  static final long LIMIT_NANOS = 10_000_000_000L;

  private final String prefix;
  private final JitWarmup.Jit jit;
  private final double waitedSeconds;
  private final long compiledAtStart;

  private PacedJit(String prefix, JitWarmup.Jit jit, double waitedSeconds) {
    this.prefix = prefix;
    this.jit = jit;
    this.waitedSeconds = waitedSeconds;
    this.compiledAtStart = jit.compiledMillis();
  }

  /** Waits for the JIT of this JVM, then starts counting; {@code prefix} names the run. */
  static PacedJit settle(String prefix) throws InterruptedException {
    return settle(prefix, JitWarmup.THIS_JVM, LIMIT_NANOS);
  }

  /** Waits at most {@code limitNanos} for {@code jit} (tests). */
  static PacedJit settle(String prefix, JitWarmup.Jit jit, long limitNanos)
      throws InterruptedException {
    long waited = JitWarmup.catchUp(jit, limitNanos);
    return new PacedJit(prefix, jit, waited / 1e9);
  }

  /**
   * {@code <prefix>jit_wait_s} (the wait before the run) and {@code <prefix>jit_ms} (compiling
   * during it, milliseconds).
   */
  Map<String, Double> figures() {
    Map<String, Double> m = new LinkedHashMap<>();
    m.put(prefix + "jit_wait_s", Math.round(waitedSeconds * 100) / 100.0);
    m.put(prefix + "jit_ms", (double) (jit.compiledMillis() - compiledAtStart));
    return m;
  }
}
