package dev.once.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The durable count of failed attempts ({@code once_attempt}) and the suspicion of events whose
 * group never committed ({@code once_suspect}).
 */
public interface AttemptsDialect {

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
   * Deletes the attempt counts and suspicion levels of {@code consumerId}'s events that are
   * processed (their marker is in {@code once_inbox}): left behind when the same event was held
   * twice at once (two copies, or a claim that expired under a slow batch) and the holder that
   * wrote them last lost its delivery to the other. Returns the rows deleted.
   */
  int clearSettled(Connection c, String consumerId) throws SQLException;
}
