package dev.once.spi;

import java.time.Duration;

/**
 * When a receiver's poll that had to wait for its first delivery lingers for more ({@link
 * Receiver#poll(int, Duration, Duration)}): only while its worker is busy. A linger buys a shared
 * commit with latency; that pays when commits are what the worker spends its time on, not when it
 * idles between deliveries. So a poll lingers when the delivery it waited for came both less than a
 * linger and less than twice the worker's last batch (from the poll that returned it to the next
 * poll: handlers, commit, acknowledgement) after the one before — the worker ran batches at least
 * half the time. At a light load a delivery then starts its batch at once, as ceiling C's does;
 * under load deliveries share commits as before. The RabbitMQ receiver lingers by it; the table
 * queue's does not, as its linger also saves claim transactions (docs/ARCHITECTURE.md).
 *
 * <p>One per receiver, used by its worker's thread only. Times are nanoseconds on the receiver's
 * clock (one a test can move: the RabbitMQ receiver reads its transport's {@code Clock}).
 */
public final class Linger {
  private long returned;
  private boolean ran;
  private long lastBatch;

  /**
   * Call as a poll starts: the time since the last poll that returned deliveries is its batch's.
   */
  public void pollStarts(long now) {
    if (ran) {
      lastBatch = now - returned;
      ran = false;
    }
  }

  /** Call as a poll returns deliveries (not when it returns none). */
  public void returns(long now) {
    returned = now;
    ran = true;
  }

  /**
   * Whether the poll lingers for a delivery that came {@code gapNanos} after the one before it (or
   * after the last rows claimed).
   */
  public boolean lingers(Duration linger, long gapNanos) {
    return !linger.isZero() && gapNanos < linger.toNanos() && gapNanos / 2 < lastBatch;
  }

  /** How long the worker's last batch took, in nanoseconds; 0 before the first. */
  public long lastBatchNanos() {
    return lastBatch;
  }
}
