package dev.once.spi;

import dev.once.ConsumerActivity;
import dev.once.DeadLetter;
import dev.once.DeadLetterAction;
import dev.once.DeadLetterFilter;
import dev.once.DeadLetterGroup;
import dev.once.Event;
import dev.once.OperationStatus;
import dev.once.WorkloadStatus;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The admin part of a dialect: the durable count of failed attempts, dead letters, retention, the
 * workload status and the schema check.
 */
public interface AdminDialect {

  /** The recorded failures of these events of {@code consumerId}, by event id (absent: none). */
  Map<String, AttemptCount> loadAttempts(Connection c, String consumerId, List<String> eventIds)
      throws SQLException;

  /**
   * Records each failed attempt: inserted, or over the stored one keeping the higher count (stored
   * + 1 or the given one) and the first failure time.
   */
  void recordAttempts(Connection c, List<FailedAttempt> attempts) throws SQLException;

  /** Forgets the failures of an event that is now processed, dead-lettered or replayed. */
  void deleteAttempts(Connection c, String consumerId, String eventId) throws SQLException;

  /**
   * The suspicion levels of these events of {@code consumerId} ({@code once_suspect}), by event id;
   * absent: not suspected. A level is how many groups the event ran in, in a row, that never
   * committed (see {@code docs/OPERATING.md}, "What comes back").
   */
  Map<String, Integer> loadSuspects(Connection c, String consumerId, List<String> eventIds)
      throws SQLException;

  /**
   * Sets each event's suspicion level, keeping a higher stored one, with {@code raisedAt}: one
   * statement for a whole group, committed before the group runs.
   */
  void raiseSuspects(Connection c, String consumerId, Map<String, Integer> levels, Instant raisedAt)
      throws SQLException;

  /** Forgets the suspicion of these events: the group they ran in is committing. */
  void clearSuspects(Connection c, String consumerId, List<String> eventIds) throws SQLException;

  /**
   * Writes a dead letter of {@code event} (status {@code dead}, dead at {@code deadAt}); false if
   * that consumer already holds an open one for the event. A replayed or discarded one is reopened
   * with the new failure.
   */
  boolean insertDeadLetter(Connection c, Event event, FailedAttempt failure, Instant deadAt)
      throws SQLException;

  /**
   * Dead letters the filter selects (a null field matches all), oldest first, at most its limit.
   */
  List<DeadLetter> selectDeadLetters(Connection c, DeadLetterFilter filter) throws SQLException;

  /**
   * A keyset page: the dead letters the filter selects with an id below {@code beforeId}, newest
   * first, at most the filter's limit.
   */
  List<DeadLetter> pageDeadLetters(Connection c, DeadLetterFilter filter, long beforeId)
      throws SQLException;

  /**
   * A keyset page for a listing: the dead letters the filter selects with an id above {@code
   * afterId}, oldest first, at most the filter's limit, without reading the payload and headers
   * columns (the events' payloads and headers are empty).
   */
  List<DeadLetter> selectDeadLetterSummaries(Connection c, DeadLetterFilter filter, long afterId)
      throws SQLException;

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
   * Takes the schema's retention lock on this (auto-commit) session without waiting; true if taken.
   * It vanishes with the session.
   */
  boolean tryRetentionLock(Connection c) throws SQLException;

  /** Releases the retention lock taken by {@link #tryRetentionLock}. */
  void retentionUnlock(Connection c) throws SQLException;

  /**
   * Deletes at most {@code limit} inbox markers processed before {@code before}; returns how many.
   */
  int deleteOldMarkers(Connection c, Instant before, int limit) throws SQLException;

  /** Deletes at most {@code limit} outbox rows sent before {@code before}; returns how many. */
  int deleteSentOutbox(Connection c, Instant before, int limit) throws SQLException;

  /**
   * Deletes at most {@code limit} replayed or discarded dead letters resolved before {@code
   * before}; returns how many.
   */
  int deleteResolvedDeadLetters(Connection c, Instant before, int limit) throws SQLException;

  /**
   * Deletes at most {@code limit} attempt rows whose last failure is before {@code before} (the
   * event is long gone); returns how many.
   */
  int deleteOldAttempts(Connection c, Instant before, int limit) throws SQLException;

  /**
   * Deletes at most {@code limit} suspicion rows raised before {@code before} (left by an event the
   * broker dead-lettered on its own, say); returns how many.
   */
  int deleteOldSuspects(Connection c, Instant before, int limit) throws SQLException;

  /**
   * What is waiting at {@code now}: unsent and parked outbox rows per destination, table-queue rows
   * per consumer group (none without a table queue), events waiting for a retry and open dead
   * letters per consumer, each with the age of its oldest row.
   */
  WorkloadStatus status(Connection c, Instant now) throws SQLException;

  /**
   * Operations by state with the age of each state's oldest, and at most {@code limit} UNKNOWN and
   * ABANDONED operations in detail, oldest first.
   */
  OperationStatus operationStatus(Connection c, Instant now, int limit) throws SQLException;

  /**
   * Per consumer, what it finished in {@code [from, to)}: markers written (completed), dead letters
   * made (dead), attempt rows whose last failure fell in the window (retried).
   */
  ConsumerActivity consumerActivity(Connection c, Instant from, Instant to) throws SQLException;

  /** The name of the schema (or database) the connection works in, for messages. */
  String currentSchema(Connection c) throws SQLException;

  /** Whether {@code table} exists in the connection's current schema. */
  boolean tableExists(Connection c, String table) throws SQLException;
}
