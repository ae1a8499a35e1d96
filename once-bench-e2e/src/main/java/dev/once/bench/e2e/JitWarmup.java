package dev.once.bench.e2e;

import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * A warm-up that ends when the JIT compiler is quiet: rounds of unmeasured work until, {@value
 * #QUIET_ROUNDS} rounds in a row, the JVM compiled for at most {@value #QUIET_SHARE} of a round's
 * time, at most {@value #MAX_ROUNDS} rounds. A fixed number of orders is not enough on two busy
 * cores: a fresh JVM running the example service compiled for 25 s over its first 25 000 orders,
 * and its rate rose from 500 to 2 300 orders/s meanwhile; Once's per-batch methods reach the
 * optimising compiler only after thousands of batches (docs/PERFORMANCE.md, round 4, the service
 * path). A service that has run for minutes is past that; the bench measures it there.
 *
 * @param orders orders the rounds sent
 * @param rounds rounds run
 * @param seconds how long they took
 * @param quiet whether the JIT was quiet at the end (false: {@value #MAX_ROUNDS} rounds ran out)
 */
record JitWarmup(long orders, int rounds, double seconds, boolean quiet) {
  /** One round of the warm-up; returns the orders it sent. */
  interface Round {
    long run() throws Exception;
  }

  /** No warm-up. */
  static final JitWarmup NONE = new JitWarmup(0, 0, 0, false);

  static final int MAX_ROUNDS = 30;

  /** The JIT is quiet in a round when it compiled for at most this share of the round's time. */
  static final double QUIET_SHARE = 0.05;

  /** Quiet rounds in a row that end the warm-up: one alone was seen between two bursts. */
  static final int QUIET_ROUNDS = 2;

  private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();

  /** Milliseconds the JIT has spent compiling in this JVM (0 if the JVM does not say). */
  static long compiledMillis() {
    return JIT != null && JIT.isCompilationTimeMonitoringSupported()
        ? JIT.getTotalCompilationTime()
        : 0;
  }

  /** Runs {@code round} until the JIT is quiet; a line per round on {@code progress}. */
  static JitWarmup run(Round round, String what, PrintStream progress) throws Exception {
    return run(round, what, progress, JitWarmup::compiledMillis);
  }

  /** As above, with the JIT's compile time in ms read from {@code compiled} (tests). */
  static JitWarmup run(Round round, String what, PrintStream progress, LongSupplier compiled)
      throws Exception {
    long start = System.nanoTime();
    long orders = 0;
    int quietInARow = 0;
    int rounds = 0;
    while (quietInARow < QUIET_ROUNDS && rounds < MAX_ROUNDS) {
      long jit = compiled.getAsLong();
      long t0 = System.nanoTime();
      orders += round.run();
      double wallMillis = (System.nanoTime() - t0) / 1e6;
      long compiling = compiled.getAsLong() - jit;
      quietInARow = compiling <= QUIET_SHARE * wallMillis ? quietInARow + 1 : 0;
      rounds++;
      progress.printf(
          "  %s round %d: the JIT compiled for %d ms of %.0f ms%n",
          what, rounds, compiling, wallMillis);
    }
    return new JitWarmup(
        orders, rounds, (System.nanoTime() - start) / 1e9, quietInARow == QUIET_ROUNDS);
  }

  /** The warm-up's figures under keys starting with {@code prefix}. */
  void report(String prefix, Map<String, Object> j) {
    j.put(prefix + "warmup_orders", orders);
    j.put(prefix + "warmup_rounds", rounds);
    j.put(prefix + "warmup_s", BenchReport.round(seconds));
    j.put(prefix + "warmup_jit_quiet", quiet);
  }
}
