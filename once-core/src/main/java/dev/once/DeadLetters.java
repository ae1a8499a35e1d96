package dev.once;

import dev.once.spi.BrokerDeadLetter;
import java.util.List;
import java.util.Optional;

/**
 * The admin side of dead letters: list, replay, discard. Obtain it from {@link Once#deadLetters()}.
 * Every replay and discard is recorded in {@code once_dead_letter_action} with who, when and why.
 *
 * <p>A replay publishes the event again through the transport with its id unchanged, to the
 * consumer group that failed only ({@code Transport.redeliver}: other groups processed it, and
 * retention may have deleted their markers), and resets the consumer's attempt count; if the event
 * was processed meanwhile, the replay is a {@code DUPLICATE} too. A relay dead letter is replayed
 * by making its outbox row pending again.
 */
public interface DeadLetters {

  /** The dead letters the filter selects, newest first. */
  List<DeadLetter> list(DeadLetterFilter filter);

  /**
   * A page of the dead letters the filter selects, newest first, at most {@code filter.limit()}:
   * those with an id below {@code beforeId} ({@link Long#MAX_VALUE} for the first page, then the
   * last id of the previous page). Keyset paging: as fast on the last page as on the first.
   */
  List<DeadLetter> page(DeadLetterFilter filter, long beforeId);

  /**
   * A page of the dead letters the filter selects for a listing, <b>oldest first</b>, at most
   * {@code filter.limit()}: those with an id above {@code afterId} (0 for the first page, then the
   * last id of the previous page). Keyset paging on the table's id: each dead letter is on exactly
   * one page, and the last page is as fast as the first. Payloads and headers are <b>not read</b>
   * from the database (a listing shows neither, and a payload may be a megabyte): each event's
   * payload and headers are empty here; {@link #get} reads them.
   */
  default List<DeadLetter> summaries(DeadLetterFilter filter, long afterId) {
    throw new UnsupportedOperationException("summaries");
  }

  /** How many dead letters the filter selects (its limit ignored). */
  long count(DeadLetterFilter filter);

  Optional<DeadLetter> get(long id);

  /** The replays and discards recorded for this dead letter's consumer and event, oldest first. */
  List<DeadLetterAction> actions(DeadLetter deadLetter);

  /**
   * Dead letters of {@code status} (null: all) grouped by consumer, type and error fingerprint —
   * one bug, one group — largest first, at most {@code limit} groups.
   */
  List<DeadLetterGroup> groups(String status, int limit);

  /**
   * Replays the open dead letters the filter selects, each to the consumer group that failed only;
   * returns those replayed. Refuses (replaying none) when one of them is older than the retention
   * policy's replay horizon: the markers that make a second delivery a duplicate may be gone.
   */
  List<DeadLetter> replay(DeadLetterFilter filter, String actor, String reason);

  /**
   * {@link #replay} without the replay-horizon check: for a deliberate replay after checking by
   * hand that the event's effects are not there.
   */
  default List<DeadLetter> replayBeyondHorizon(
      DeadLetterFilter filter, String actor, String reason) {
    throw new UnsupportedOperationException("replayBeyondHorizon");
  }

  /** Discards the open dead letters the filter selects (they stay listed as discarded). */
  List<DeadLetter> discard(DeadLetterFilter filter, String actor, String reason);

  /**
   * Up to {@code limit} of the messages the broker dead-lettered on its own for {@code consumerId}
   * of {@code destination} (RabbitMQ: {@code <queue>.dead-letter}, fed by rejects and the delivery
   * limit), read and given back where they were; empty where the transport keeps no such messages.
   * On RabbitMQ each look counts as a delivery of the message in the dead-letter queue (see
   * docs/RABBITMQ.md).
   */
  default List<BrokerDeadLetter> peekBroker(String destination, String consumerId, int limit) {
    throw new UnsupportedOperationException("peekBroker");
  }

  /**
   * Moves up to {@code limit} of the broker's own dead letters of {@code consumerId} into Once's
   * dead letters of that consumer, so that they can be listed, replayed and discarded like the
   * others. One message at a time: its dead letter commits, then the broker's message is
   * acknowledged; a crash between leaves the message in the broker, and moving it again adds no
   * second dead letter while the first is open. A message is decoded by {@link
   * dev.once.spi.MessageDecoder}'s rule; one that cannot be is dead-lettered as {@code
   * dev.once.MalformedMessage} under its stand-in id.
   *
   * @param progress called with the counts so far after each message
   */
  default BrokerMove moveFromBroker(
      String destination,
      String consumerId,
      int limit,
      java.util.function.Consumer<BrokerMove> progress) {
    throw new UnsupportedOperationException("moveFromBroker");
  }

  /**
   * A page of the keys ordered consumers parked behind a dead letter, ordered by the head's
   * dead-letter id: at most {@code limit}, those with an id above {@code afterId} (0 for the first
   * page, then the last id of the previous page), each with the events waiting behind it.
   *
   * @param consumerId only this consumer group's; null: every group's
   * @param key only this key; null: every key
   */
  default List<ParkedKey> parkedKeys(String consumerId, String key, long afterId, int limit) {
    return List.of();
  }

  /** The parked keys these dead letters head (a dead letter that heads none is left out). */
  default List<ParkedKey> parkedKeysHeadedBy(List<Long> deadLetterIds) {
    return List.of();
  }

  /**
   * Replays the head of each key {@code consumerId} (null: any ordered consumer) parked under
   * {@code key}: as {@link #replay} of its dead letter, the head goes back to its old place and the
   * key is released in the same transaction, so the head runs first and then the events behind it,
   * in order. Returns the keys released (with the events that were behind each); refused as {@link
   * #replay} is for a head older than the replay horizon.
   */
  default List<ParkedKey> replayKey(String consumerId, String key, String actor, String reason) {
    throw new UnsupportedOperationException("replayKey");
  }

  /**
   * Discards a whole parked key: its head's dead letter is discarded and the events waiting behind
   * it are <b>deleted</b> from the queue (each recorded in the action log under its own event id),
   * and the key is released, in one transaction. Events of the key enqueued after that run as
   * usual. Returns the keys discarded, each with the number of events deleted behind it.
   */
  default List<ParkedKey> discardKey(String consumerId, String key, String actor, String reason) {
    throw new UnsupportedOperationException("discardKey");
  }
}
