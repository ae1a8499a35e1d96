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
  void aJitThatNeverQuietsEndsTheWarmUpAfterMaxRoundsSayingSo() throws Exception {
    JitWarmup w = warm(5_000);
    assertThat(w.rounds()).isEqualTo(JitWarmup.MAX_ROUNDS);
    assertThat(w.quiet()).isFalse();
  }

  @Test
  void thisJvmSaysHowLongItsJitCompiled() {
    assertThat(JitWarmup.compiledMillis()).isPositive();
  }
}
