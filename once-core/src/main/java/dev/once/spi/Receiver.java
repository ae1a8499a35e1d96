package dev.once.spi;

import java.time.Duration;
import java.util.List;

/**
 * Hands out deliveries of one consumer group. Not thread-safe: one per worker thread. Closing it
 * without acknowledging leaves its deliveries to come back, as a crash would.
 */
public interface Receiver extends AutoCloseable {

  /** Up to {@code max} deliveries, waiting at most {@code wait} for the first one. */
  List<Delivery> poll(int max, Duration wait) throws InterruptedException;

  /**
   * As {@link #poll(int, Duration)}, but a poll that found nothing waiting and had to wait for its
   * first delivery then waits up to {@code linger} more for the batch to fill up to {@code max}: a
   * trickle of messages then makes fewer, larger batches (each batch is a synchronous commit)
   * instead of one batch per message. A poll that finds deliveries waiting returns them at once.
   * The default ignores {@code linger}.
   *
   * @param max the most deliveries to return
   * @param wait how long to wait for the first delivery
   * @param linger how long to wait for more after a first delivery that had to be waited for; zero
   *     for none
   * @return up to {@code max} deliveries, empty if none came within {@code wait}
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  default List<Delivery> poll(int max, Duration wait, Duration linger) throws InterruptedException {
    return poll(max, wait);
  }

  /** Tells the broker it may discard these deliveries. Call only after the commit. */
  void ack(List<Delivery> deliveries);

  /** Returns these deliveries to the broker, to come back after {@code delay} (best effort). */
  void nack(List<Delivery> deliveries, Duration delay);

  /**
   * Returns these deliveries unrun, to come back at once: the worker stopped, or another delivery
   * of their batch crashed it. A transport that can should hand them out again as if this delivery
   * had not happened (not flagged redelivered, the count not raised), so that another process does
   * not suspect them of having crashed a batch; the default returns them as {@link #nack} does.
   */
  default void release(List<Delivery> deliveries) {
    nack(deliveries, Duration.ZERO);
  }

  /**
   * Whether this transport knows that the earlier deliveries of {@code d}, a redelivery, ended
   * without a crash of the worker that held them — lost with a connection the broker cut, say — so
   * that the consumer need not suspect it of having crashed its batch. The default: false, it
   * cannot tell. Called once per redelivery: an implementation may forget what it knew.
   */
  default boolean cameBackCleanly(Delivery d) {
    return false;
  }

  @Override
  void close();
}
