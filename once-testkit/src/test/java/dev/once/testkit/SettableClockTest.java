package dev.once.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SettableClockTest {
  private static final Instant START = Instant.parse("2026-03-01T10:00:00Z");

  @Test
  void aStoppedClockReadsTheSameInstantUntilMoved() {
    SettableClock clock = SettableClock.stopped(START);
    Instant real = Instant.now();
    while (!Instant.now().isAfter(real)) {
      Thread.onSpinWait(); // until real time has moved on, which the stopped clock must not
    }
    assertEquals(START, clock.instant());
    clock.advance(Duration.ofHours(25));
    assertEquals(START.plus(Duration.ofHours(25)), clock.instant());
    assertTrue(clock.isStopped());
  }

  @Test
  void aRunningClockIsRealTimePlusWhatItWasMovedBy() {
    SettableClock clock = SettableClock.running();
    clock.advance(Duration.ofDays(1));
    Instant now = Instant.now();
    Instant read = clock.instant();
    assertFalse(clock.isStopped());
    assertTrue(
        !read.isBefore(now.plus(Duration.ofDays(1)))
            && read.isBefore(now.plus(Duration.ofDays(1)).plusSeconds(5)),
        "read " + read + ", real " + now);
  }

  @Test
  void aStoppedClockNeedsAnInstant() {
    assertThrows(IllegalArgumentException.class, () -> SettableClock.stopped(null));
  }
}
