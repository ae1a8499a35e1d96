package dev.once.test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * once-core's own tests' copy of once-testkit's {@code dev.once.testkit.SettableClock} (the testkit
 * depends on core, so core's tests cannot use it): keep the two the same.
 *
 * <p>The clock tests give an engine ({@code OnceBuilder.clock}, {@code OperationsBuilder.clock}, …)
 * and move by hand, instead of sleeping: lease expiry, visibility timeouts, key retention,
 * horizons. Two kinds, one type:
 *
 * <ul>
 *   <li>{@link #stopped(Instant)} / {@link #stoppedNow()} stands still until moved: every reading
 *       between two moves is the same instant.
 *   <li>{@link #running()} is real time plus what the test moved it by: short backoffs of a few
 *       milliseconds still pass by themselves, and {@link #advance} jumps over the long ones.
 * </ul>
 */
public final class SettableClock extends Clock {
  private final Instant stoppedAt;
  private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

  private SettableClock(Instant stoppedAt) {
    this.stoppedAt = stoppedAt;
  }

  /** A clock that reads {@code at} until moved. */
  public static SettableClock stopped(Instant at) {
    if (at == null) {
      throw new IllegalArgumentException("SettableClock.stopped: the instant must not be null");
    }
    return new SettableClock(at);
  }

  /** A clock stopped at the current instant. */
  public static SettableClock stoppedNow() {
    return stopped(Instant.now());
  }

  /** A clock that runs with real time, plus whatever {@link #advance} added. */
  public static SettableClock running() {
    return new SettableClock(null);
  }

  /** Moves the clock forward by {@code d} (a negative duration moves it back). */
  public void advance(Duration d) {
    offset.updateAndGet(o -> o.plus(d));
  }

  /** Whether the clock stands still between moves. */
  public boolean isStopped() {
    return stoppedAt != null;
  }

  @Override
  public Instant instant() {
    return (stoppedAt == null ? Instant.now() : stoppedAt).plus(offset.get());
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public String toString() {
    return (isStopped() ? "SettableClock.stopped[" : "SettableClock.running[") + instant() + "]";
  }
}
