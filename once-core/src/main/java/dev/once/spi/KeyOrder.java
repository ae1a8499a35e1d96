package dev.once.spi;

/**
 * A capability of a {@link Transport} that can deliver one consumer group's messages in key order:
 * what an ordered consumer ({@code ConsumerBuilder.ordered()}) needs. Without it such a consumer is
 * refused when it is built.
 *
 * <p>After {@link #deliverInKeyOrder}, the group's receivers in this process hand out a message
 * with a key only when it is the earliest message of its (destination, key) the group still holds,
 * and its key is not parked: one message of a key at a time, a nacked one still first. A message
 * acknowledged after its consumer dead-lettered it parks its key — its later messages are kept, in
 * order, unclaimed — until a {@link Replay} of that message (which runs first, then releases the
 * key) or a discard of its dead letter (which releases the rest). Messages without a key are not
 * ordered.
 */
public interface KeyOrder {

  /**
   * Switches the group's receivers to key order; idempotent. Every process that consumes as {@code
   * consumerId} must do the same: a receiver that does not would take messages out of order.
   *
   * @throws dev.once.ConfigurationException when this transport cannot order the group (its
   *     database has no ordered claim)
   */
  void deliverInKeyOrder(String destination, String consumerId);
}
