package dev.once.spi;

/**
 * A capability of a {@link Transport} whose broker dead-letters messages itself, outside Once's
 * dead letters (RabbitMQ: the group's dead-letter queue, fed by its delivery limit and by rejects).
 * {@code DeadLetters.moveFromBroker} moves them into Once's dead letters through {@link #reader}.
 */
public interface BrokerDeadLetters {

  /**
   * Whether the broker holds {@code consumerId}'s group for {@code destination} — a consumer of it
   * was started there —, so that admin tools show the groups that exist and no invented ones. The
   * default, for a broker that cannot tell, says yes.
   */
  default boolean hasGroup(String destination, String consumerId) {
    return true;
  }

  /** How many messages the broker itself dead-lettered for {@code consumerId}. */
  long count(String destination, String consumerId);

  /** A reader of the messages {@link #count} counts, to look at them or move them. */
  BrokerDeadLetterReader reader(String destination, String consumerId);
}
