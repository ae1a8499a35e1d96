package dev.once.bench.e2e;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The JIT around a measured paced run. With a warm-up ({@code --warmup} above 0) each paced run
 * (Once's, ceiling C's, the service's) runs twice at the same rate and length, and only the second
 * is measured; before it, the run waits (at most {@link #LIMIT_NANOS}) until the JIT has compiled
 * what it queued. After it, the wait, the time the JIT compiled during the measured run and whether
 * a paced run went before it are reported under the run's prefix ({@code paced_}, {@code
 * ceiling_c_paced_}, {@code service_paced_}).
 *
 * <p>Why: the warm-up rounds run at full speed, where a relay batch carries up to 200 rows and a
 * consumer batch 32, so the per-batch code of Once's relay is called a few hundred times a round. A
 * paced run at a third of the rate carries one or two rows a batch, calls it some 450 times a
 * second, and made the optimising compiler take up the relay's methods (RelayImpl.markFailed,
 * Publisher.publishOn, RelayClaim, Listeners.markedSent, …) in the middle of the measured run: the
 * JIT compiled 0.2–1.2 s during Once's paced runs against 0.01–0.16 s during ceiling C's, whose
 * relay is a few lines around the same JDBC and AMQP calls (docs/PERFORMANCE.md, round 13). A
 * service that has run for a while at a light load is past that.
 */
final class PacedJit {
  /** The longest a paced run waits for the JIT: a run's queue drains in 0–3 s on two busy cores. */
  static final long LIMIT_NANOS = 10_000_000_000L;

  private final String prefix;
  private final JitWarmup.Jit jit;
  private final boolean warmed;
  private final double waitedSeconds;
  private final long compiledAtStart;

  private PacedJit(String prefix, JitWarmup.Jit jit, boolean warmed, double waitedSeconds) {
    this.prefix = prefix;
    this.jit = jit;
    this.warmed = warmed;
    this.waitedSeconds = waitedSeconds;
    this.compiledAtStart = jit.compiledMillis();
  }

  /**
   * Waits for the JIT of this JVM, then starts counting; {@code prefix} names the run, {@code
   * warmed} says whether an unmeasured paced run went before it.
   */
  static PacedJit settle(String prefix, boolean warmed) throws InterruptedException {
    return settle(prefix, warmed, JitWarmup.THIS_JVM, LIMIT_NANOS);
  }

  /** Waits at most {@code limitNanos} for {@code jit} (tests). */
  static PacedJit settle(String prefix, boolean warmed, JitWarmup.Jit jit, long limitNanos)
      throws InterruptedException {
    long waited = JitWarmup.catchUp(jit, limitNanos);
    return new PacedJit(prefix, jit, warmed, waited / 1e9);
  }

  /**
   * {@code <prefix>warmed} (1 if an unmeasured paced run went first), {@code <prefix>jit_wait_s}
   * (the wait before the run) and {@code <prefix>jit_ms} (compiling during it, milliseconds).
   */
  Map<String, Double> figures() {
    Map<String, Double> m = new LinkedHashMap<>();
    m.put(prefix + "warmed", warmed ? 1.0 : 0.0);
    m.put(prefix + "jit_wait_s", Math.round(waitedSeconds * 100) / 100.0);
    m.put(prefix + "jit_ms", (double) (jit.compiledMillis() - compiledAtStart));
    return m;
  }
}
