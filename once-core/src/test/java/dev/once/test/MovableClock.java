package dev.once.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Real time plus what the test moved it by: backoffs of a few milliseconds still pass by
 * themselves, and a test that needs a visibility timeout or a horizon to run out moves the clock
 * instead of sleeping. ({@link MutableClock} stands still unless moved.)
 */
public final class MovableClock extends Clock {
  private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

  public void advance(Duration d) {
    offset.updateAndGet(o -> o.plus(d));
  }

  @Override
  public Instant instant() {
    return Instant.now().plus(offset.get());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
