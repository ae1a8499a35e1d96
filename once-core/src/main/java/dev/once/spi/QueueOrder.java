package dev.once.spi;

/**
 * A capability of a {@link Transport} that can hand all of one consumer group's messages to one
 * receiver at a time, across every process, in the order of the group's queue — but not in key
 * order to competing receivers (RabbitMQ's single active consumer). An ordered consumer ({@code
 * ConsumerBuilder.ordered()}) on a transport without {@link KeyOrder} needs it: its one active
 * receiver takes each message into a key lane in Once's database, in queue order, and acknowledges
 * it after that commit; the consumer's workers run the lane in key order (docs/ORDERING.md,
 * "Ordered on RabbitMQ").
 *
 * <p>What the lane's order rests on: a message the active receiver holds unacknowledged when it
 * goes (its channel closed, its process dead) comes back ahead of the messages behind it, in order,
 * to whichever receiver is active next; the receiver never returns a message itself.
 */
public interface QueueOrder {

  /**
   * Makes one receiver at a time, across every process, receive the group's messages, in queue
   * order; idempotent, called before the group is declared. Every process that consumes as {@code
   * consumerId} must do the same.
   *
   * @throws dev.once.ConfigurationException when the group cannot be consumed that way
   */
  void deliverInQueueOrder(String destination, String consumerId);
}
