package dev.once.bench.e2e;

import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * A warm-up that ends when the JIT compiler is quiet: rounds of unmeasured work until, {@value
 * #QUIET_ROUNDS} rounds in a row and for at least as many orders as the measured run will send, the
 * JVM compiled for at most {@value #QUIET_SHARE} of a round's time, at most {@value #MAX_ROUNDS}
 * rounds. Two quiet rounds alone were seen in a lull: Once's per-batch methods (the relay's
 * runOnce, the consumer's Pipeline) reach the optimising compiler only after 30 000 to 45 000
 * orders, and a warm-up that ended at 24 000 orders after two quiet rounds had its service compile
 * for 7.8 s while measured (-XX:+PrintCompilation; docs/PERFORMANCE.md, round 4). A fixed number of
 * orders is not enough on two busy cores: a fresh JVM running the example service compiled for 25 s
 * over its first 25 000 orders, and its rate rose from 500 to 2 300 orders/s meanwhile; Once's
 * per-batch methods reach the optimising compiler only after thousands of batches
 * (docs/PERFORMANCE.md, round 4, the service path). A service that has run for minutes is past
 * that; the bench measures it there.
 *
 * <p>After each round the warm-up waits, at most as long as the round took, until the JIT has
 * compiled what the round queued ({@link JitQueue}). Without that pause the JIT could not catch up
 * on two cores: the round's threads and PostgreSQL keep both busy, HotSpot's one C2 thread got a
 * quarter of a core, compiled every round's new hot methods 4 times slower than its CPU time
 * (-XX:+PrintCompilation; docs/PERFORMANCE.md, round 4), and the service's warm-up ran out of
 * rounds still compiling. The pause is not a round: whether the JIT is quiet is judged on the
 * rounds alone, under full load, as before.
 *
 * @param orders orders the rounds sent
 * @param rounds rounds run
 * @param seconds how long they took, pauses included
 * @param quiet whether the JIT was quiet at the end (false: {@value #MAX_ROUNDS} rounds ran out)
 * @param pausedSeconds of {@code seconds}, the pauses for the JIT to catch up
 */
record JitWarmup(long orders, int rounds, double seconds, boolean quiet, double pausedSeconds) {
  /** One round of the warm-up; returns the orders it sent. */
  interface Round {
    long run() throws Exception;
  }

  /** What the warm-up reads of the JIT: ms compiled so far, compilations pending (-1: unknown). */
  interface Jit {
    long compiledMillis();

    int pending();
  }

  /** This JVM's JIT. */
  static final Jit THIS_JVM =
      new Jit() {
        @Override
        public long compiledMillis() {
          return JitWarmup.compiledMillis();
        }

        @Override
        public int pending() {
          return JitQueue.pending();
        }
      };

  /** No warm-up. */
  static final JitWarmup NONE = new JitWarmup(0, 0, 0, false, 0);

  /**
   * The cap. 30 was too few for the service with the quiet-window script's settings (--warmup 2000,
   * --events 10000): its per-batch code reached C2 only at ~52 000 orders, and five quiet rounds
   * after that need ~62 000 (-XX:+PrintCompilation; docs/PERFORMANCE.md, round 4).
   */
  static final int MAX_ROUNDS = 40;

  /** The JIT is quiet in a round when it compiled for at most this share of the round's time. */
  static final double QUIET_SHARE = 0.05;

  /** Quiet rounds in a row that end the warm-up: one alone was seen between two bursts. */
  static final int QUIET_ROUNDS = 2;

  /** How often a pause looks at the JIT's queue. */
  static final long POLL_MILLIS = 20;

  private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();

  /** Milliseconds the JIT has spent compiling in this JVM (0 if the JVM does not say). */
  static long compiledMillis() {
    return JIT != null && JIT.isCompilationTimeMonitoringSupported()
        ? JIT.getTotalCompilationTime()
        : 0;
  }

  /**
   * Runs {@code round} until the JIT is quiet for {@value #QUIET_ROUNDS} rounds and {@code
   * quietOrders} orders (the measured run's); a line per round on {@code progress}.
   */
  static JitWarmup run(Round round, String what, PrintStream progress, long quietOrders)
      throws Exception {
    return run(round, what, progress, THIS_JVM, quietOrders);
  }

  /** As above, with the JIT read from {@code jit} (tests). */
  static JitWarmup run(Round round, String what, PrintStream progress, Jit jit, long quietOrders)
      throws Exception {
    long start = System.nanoTime();
    long orders = 0;
    long pausedNanos = 0;
    int quietInARow = 0;
    long quietOrdersInARow = 0;
    int rounds = 0;
    while (!(quietInARow >= QUIET_ROUNDS && quietOrdersInARow >= quietOrders)
        && rounds < MAX_ROUNDS) {
      long compiled = jit.compiledMillis();
      long t0 = System.nanoTime();
      long sent = round.run();
      orders += sent;
      long roundNanos = System.nanoTime() - t0;
      double wallMillis = roundNanos / 1e6;
      long compiling = jit.compiledMillis() - compiled;
      boolean quiet = compiling <= QUIET_SHARE * wallMillis;
      quietInARow = quiet ? quietInARow + 1 : 0;
      quietOrdersInARow = quiet ? quietOrdersInARow + sent : 0;
      rounds++;
      long paused = catchUp(jit, roundNanos);
      pausedNanos += paused;
      progress.printf(
          "  %s round %d: the JIT compiled for %d ms of %.0f ms; %d ms for it to catch up%n",
          what, rounds, compiling, wallMillis, paused / 1_000_000);
    }
    return new JitWarmup(
        orders,
        rounds,
        (System.nanoTime() - start) / 1e9,
        quietInARow >= QUIET_ROUNDS && quietOrdersInARow >= quietOrders,
        pausedNanos / 1e9);
  }

  /**
   * Waits, at most {@code limitNanos}, until the JIT has nothing queued or in progress; returns the
   * nanoseconds waited (0 at once if it does not say).
   */
  static long catchUp(Jit jit, long limitNanos) throws InterruptedException {
    long t0 = System.nanoTime();
    while (jit.pending() > 0 && System.nanoTime() - t0 < limitNanos) {
      Thread.sleep(POLL_MILLIS);
    }
    return System.nanoTime() - t0;
  }

  /** Two quiet rounds, whatever their orders, the JIT's compile time from {@code compiled}. */
  static JitWarmup run(Round round, String what, PrintStream progress, LongSupplier compiled)
      throws Exception {
    return run(round, what, progress, jit(compiled, () -> 0), 0);
  }

  /** A JIT read from these suppliers (tests). */
  static Jit jit(LongSupplier compiled, IntSupplier pending) {
    return new Jit() {
      @Override
      public long compiledMillis() {
        return compiled.getAsLong();
      }

      @Override
      public int pending() {
        return pending.getAsInt();
      }
    };
  }

  /** The warm-up's figures under keys starting with {@code prefix}. */
  void report(String prefix, Map<String, Object> j) {
    j.put(prefix + "warmup_orders", orders);
    j.put(prefix + "warmup_rounds", rounds);
    j.put(prefix + "warmup_s", BenchReport.round(seconds));
    j.put(prefix + "warmup_jit_quiet", quiet);
    j.put(prefix + "warmup_jit_catch_up_s", BenchReport.round(pausedSeconds));
  }
}
