package dev.once.jdbc;

import dev.once.DeadLetter;
import dev.once.DeadLetterAction;
import dev.once.DeadLetterFilter;
import dev.once.DeadLetterGroup;
import dev.once.Event;
import dev.once.ParkedKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/** Dead letters ({@code once_dead_letter}), what was done with them, and parked outbox rows. */
public interface DeadLettersDialect {

  /**
   * Writes a dead letter of {@code event} (status {@code dead}, dead at {@code deadAt}); false if
   * that consumer already holds an open one for the event. A replayed or discarded one is reopened
   * with the new failure.
   */
  boolean insertDeadLetter(Connection c, Event event, FailedAttempt failure, Instant deadAt)
      throws SQLException;

  /** The dead letters the query selects (a null field of its filter matches all). */
  List<DeadLetter> deadLetters(Connection c, DeadLetterQuery query) throws SQLException;

  /** How many dead letters the filter selects (its limit ignored). */
  long countDeadLetters(Connection c, DeadLetterFilter filter) throws SQLException;

  /**
   * Dead letters of {@code status} (null: all) grouped by consumer, event type and error
   * fingerprint, largest groups first, at most {@code limit} groups.
   */
  List<DeadLetterGroup> deadLetterGroups(Connection c, String status, int limit)
      throws SQLException;

  /** The replays and discards recorded for (consumer, event), oldest first. */
  List<DeadLetterAction> deadLetterActions(Connection c, String consumerId, String eventId)
      throws SQLException;

  /**
   * Moves dead letter {@code id} from {@code dead} to {@code status} ({@code replayed} or {@code
   * discarded}) at {@code at}; false if it was not open (somebody else resolved it).
   */
  boolean resolveDeadLetter(Connection c, long id, String status, Instant at) throws SQLException;

  /** Records who replayed or discarded the dead letter of (consumer, event), when and why. */
  void insertDeadLetterAction(
      Connection c, String consumerId, String eventId, DeadLetterAction action) throws SQLException;

  /** Makes the parked outbox row of the event pending again, its attempts reset. */
  void unparkOutbox(Connection c, String eventId) throws SQLException;

  /** Deletes the parked (unsent) outbox row of the event. */
  void deleteParkedOutbox(Connection c, String eventId) throws SQLException;

  /**
   * Releases the key an ordered consumer parked behind the event (its dead letter was discarded):
   * the key's later rows are claimed again, in order. Returns whether a key was parked by it. The
   * default finds none: a store without ordered consumers parks no key.
   */
  default boolean releaseParkedKey(Connection c, String consumerId, String eventId)
      throws SQLException {
    return false;
  }

  /**
   * The keys ordered consumer groups parked that the query selects, each with its head's
   * dead-letter id and the events waiting behind it, ordered by that id. The default finds none.
   */
  default List<ParkedKey> parkedKeys(Connection c, ParkedKeyQuery query) throws SQLException {
    return List.of();
  }

  /**
   * Deletes the events waiting behind a parked key (the key itself stays parked: the caller
   * releases it), each recorded in the action log under its own event id as {@code action}; returns
   * how many. The default finds none.
   */
  default int dropBehindParkedKey(Connection c, ParkedKey key, DeadLetterAction action)
      throws SQLException {
    return 0;
  }
}
