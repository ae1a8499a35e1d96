package dev.once.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The warm-up's rule, with the JIT's compile time played by a counter each round adds to. */
class JitWarmupTest {
  private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

  /** Rounds that compile for {@code millis[i]} ms each (the last value from then on). */
  private static JitWarmup warm(long... millis) throws Exception {
    AtomicLong compiled = new AtomicLong();
    AtomicInteger round = new AtomicInteger();
    return JitWarmup.run(
        () -> {
          int i = round.getAndIncrement();
          compiled.addAndGet(millis[Math.min(i, millis.length - 1)]);
          Thread.sleep(2);
          return 10;
        },
        "test",
        QUIET,
        compiled::get);
  }

  @Test
  void aQuietRoundBetweenTwoBurstsDoesNotEndTheWarmUpTwoInARowDo() throws Exception {
    JitWarmup w = warm(5_000, 0, 5_000, 0, 0, 5_000);
    assertThat(w.rounds()).isEqualTo(5);
    assertThat(w.orders()).isEqualTo(50);
    assertThat(w.quiet()).isTrue();
  }

  @Test
  void theJitMustBeQuietForAsManyOrdersAsTheMeasuredRunWillSendNotTwoRoundsAlone()
      throws Exception {
    AtomicLong compiled = new AtomicLong();
    AtomicInteger round = new AtomicInteger();
    long[] millis = {5_000, 0, 0, 5_000, 0, 0, 0, 0, 0, 5_000}; // a lull, then quiet
    JitWarmup w =
        JitWarmup.run(
            () -> {
              compiled.addAndGet(millis[Math.min(round.getAndIncrement(), millis.length - 1)]);
              Thread.sleep(2);
              return 10;
            },
            "test",
            QUIET,
            JitWarmup.jit(compiled::get, () -> 0),
            50); // a measured run of 50 orders: 5 quiet rounds of 10
    assertThat(w.rounds()).isEqualTo(9);
    assertThat(w.quiet()).isTrue();
  }

  @Test
  void aLullShorterThanTheMeasuredRunAtTheCapIsNotQuiet() throws Exception {
    AtomicLong compiled = new AtomicLong();
    AtomicInteger round = new AtomicInteger();
    JitWarmup w =
        JitWarmup.run(
            () -> {
              compiled.addAndGet(round.incrementAndGet() % 3 == 0 ? 5_000 : 0);
              Thread.sleep(2);
              return 10;
            },
            "test",
            QUIET,
            JitWarmup.jit(compiled::get, () -> 0),
            30); // two quiet rounds between bursts, never three
    assertThat(w.rounds()).isEqualTo(JitWarmup.MAX_ROUNDS);
    assertThat(w.quiet()).isFalse();
  }

  @Test
  void aJitThatNeverQuietsEndsTheWarmUpAfterMaxRoundsSayingSo() throws Exception {
    JitWarmup w = warm(5_000);
    assertThat(w.rounds()).isEqualTo(JitWarmup.MAX_ROUNDS);
    assertThat(w.quiet()).isFalse();
  }

  @Test
  void afterARoundTheWarmUpWaitsUntilTheJitHasCompiledWhatTheRoundQueued() throws Exception {
    AtomicInteger queued = new AtomicInteger();
    AtomicInteger polls = new AtomicInteger();
    JitWarmup w =
        JitWarmup.run(
            () -> {
              queued.set(3); // each round queues three compilations
              Thread.sleep(200); // and lasts long enough for them: a pause lasts at most as long
              return 10;
            },
            "test",
            QUIET,
            JitWarmup.jit(
                () -> 0,
                () -> {
                  polls.incrementAndGet();
                  return queued.getAndUpdate(n -> Math.max(0, n - 1));
                }),
            0);
    assertThat(w.rounds()).isEqualTo(JitWarmup.QUIET_ROUNDS);
    assertThat(queued.get()).isZero();
    assertThat(polls.get()).isEqualTo(4 * JitWarmup.QUIET_ROUNDS); // 3, 2, 1, then 0: go on
  }

  @Test
  void aPauseLastsAtMostAsLongAsItsRoundAndIsNotARound() throws Exception {
    AtomicLong compiled = new AtomicLong();
    JitWarmup w =
        JitWarmup.run(
            () -> {
              Thread.sleep(50);
              return 10;
            },
            "test",
            QUIET,
            JitWarmup.jit(
                compiled::get,
                () -> {
                  compiled.addAndGet(1_000); // compiling all through the pause, never done
                  return 1;
                }),
            0);
    // what the JIT compiled in the pauses does not count against the rounds: quiet after two
    assertThat(w.rounds()).isEqualTo(JitWarmup.QUIET_ROUNDS);
    assertThat(w.quiet()).isTrue();
    assertThat(w.pausedSeconds()).isBetween(2 * 0.05, 2 * (0.05 + 0.1));
    assertThat(w.seconds()).isGreaterThanOrEqualTo(w.pausedSeconds() + 2 * 0.05);
  }

  @Test
  void aJvmThatCannotSayWhatItsJitHasQueuedIsNotWaitedFor() throws Exception {
    JitWarmup w =
        JitWarmup.run(
            () -> {
              Thread.sleep(20);
              return 10;
            },
            "test",
            QUIET,
            JitWarmup.jit(() -> 0, () -> -1),
            0);
    assertThat(w.pausedSeconds()).isLessThan(0.01);
  }

  @Test
  void theQueueIsCountedFromCompilerQueuesText() {
    String text =
        """
        Current compiles:\s
        C2 CompilerThread0  1154   !   4       a.B::c (497 bytes)
        C1 CompilerThread0  1160       3       a.B::d (12 bytes)

        C1 compile queue:
        Empty

        C2 compile queue:
        1153       4       a.C::e (106 bytes)
        """;
    assertThat(JitQueue.count(text)).isEqualTo(3);
    assertThat(JitQueue.count("Current compiles: \n\nC1 compile queue:\nEmpty\n")).isZero();
    assertThat(JitQueue.count("no such command")).isEqualTo(-1);
  }

  @Test
  void thisJvmSaysWhatItsJitHasQueued() {
    assertThat(JitQueue.pending()).isNotNegative();
  }

  @Test
  void thisJvmSaysHowLongItsJitCompiled() {
    assertThat(JitWarmup.compiledMillis()).isPositive();
  }
}
