package dev.once.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LingerTest {
  private static final long MS = 1_000_000;
  private static final Duration FIVE_MS = Duration.ofMillis(5);

  @Test
  void aWorkerBusyAtLeastHalfTheTimeLingers() {
    Linger linger = afterABatchOf(3 * MS);
    assertThat(linger.lingers(FIVE_MS, 4 * MS)).as("gap 4 ms, batch 3 ms").isTrue();
    assertThat(linger.lingers(Duration.ofMillis(10), 6 * MS - 1)).as("just under twice").isTrue();
  }

  @Test
  void aWorkerThatIdlesMoreThanItRunsRunsAtOnce() {
    Linger linger = afterABatchOf(1 * MS);
    assertThat(linger.lingers(FIVE_MS, 4 * MS)).as("gap 4 ms, batch 1 ms").isFalse();
    assertThat(linger.lingers(FIVE_MS, 2 * MS)).as("twice the batch").isFalse();
  }

  @Test
  void deliveriesFartherApartThanTheLingerRunAtOnceHoweverBusyTheWorker() {
    assertThat(afterABatchOf(50 * MS).lingers(FIVE_MS, 5 * MS)).isFalse();
  }

  @Test
  void noLingerNoBatchOrAnEmptyPollInBetweenChangeNothing() {
    assertThat(afterABatchOf(50 * MS).lingers(Duration.ZERO, 1)).as("linger zero").isFalse();
    assertThat(new Linger().lingers(FIVE_MS, 1)).as("before any batch").isFalse();
    Linger linger = afterABatchOf(3 * MS);
    linger.pollStarts(10_000 * MS); // a poll after an empty one: its wait is not a batch
    assertThat(linger.lastBatchNanos()).isEqualTo(3 * MS);
  }

  private static Linger afterABatchOf(long nanos) {
    Linger linger = new Linger();
    linger.pollStarts(100 * MS);
    linger.returns(200 * MS);
    linger.pollStarts(200 * MS + nanos);
    return linger;
  }
}
