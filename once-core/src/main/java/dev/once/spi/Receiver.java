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

  /** Tells the broker it may discard these deliveries. Call only after the commit. */
  void ack(List<Delivery> deliveries);

  /** Returns these deliveries to the broker, to come back after {@code delay} (best effort). */
  void nack(List<Delivery> deliveries, Duration delay);

  @Override
  void close();
}
