package dev.once.spi;

/**
 * A capability of a {@link Transport} that hands a consumer group's messages of one key out in the
 * order of the group's queue, and none of a key's later messages while an earlier one is held
 * unacknowledged by any receiver of any process — but does not keep a retried or parked key's later
 * messages back (it is no {@link KeyOrder}). Either one receiver at a time takes the whole queue
 * (RabbitMQ's single active consumer), or every receiver may, a key's messages going out one run at
 * a time (SQS FIFO, the key being the message group). An ordered consumer ({@code
 * ConsumerBuilder.ordered()}) on a transport without {@link KeyOrder} needs it: its receiver takes
 * each message into a key lane in Once's database and acknowledges it after that commit, so a key's
 * messages reach the lane in queue order; the consumer's workers run the lane in key order
 * (docs/ORDERING.md, "Ordered on RabbitMQ" and "Ordered on SQS FIFO").
 *
 * <p>What the lane's order rests on: a message acknowledged only after its lane row committed; a
 * message held unacknowledged when its receiver goes (its channel closed, its process dead) comes
 * back ahead of the key's messages behind it, to whichever receiver gets them next; the receiver
 * never hands back an earlier message of a key while it goes on with a later one.
 */
public interface QueueOrder {

  /**
   * Makes the group's messages go out in queue order as above; idempotent, called before the group
   * is declared. Every process that consumes as {@code consumerId} must do the same.
   *
   * @param batch the most deliveries the group's receiver is asked for in one poll: one receiver
   *     takes what the consumer's workers will run (a transport that bounds the deliveries a
   *     receiver holds unacknowledged lets it hold at least this many, so that one poll brings a
   *     lane commit's worth)
   * @throws dev.once.ConfigurationException when the group cannot be consumed that way
   */
  void deliverInQueueOrder(String destination, String consumerId, int batch);
}
