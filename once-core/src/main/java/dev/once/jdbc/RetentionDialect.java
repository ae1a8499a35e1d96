package dev.once.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;

/** What the retention janitor deletes, and its lock. */
public interface RetentionDialect {

  /** The kinds of rows retention deletes, each by the time that makes it old. */
  enum Retained {
    /** Inbox markers, by {@code processed_at}. */
    MARKERS,
    /** Sent outbox rows, by {@code sent_at}. */
    SENT_OUTBOX,
    /** Replayed or discarded dead letters, by {@code resolved_at}. */
    RESOLVED_DEAD_LETTERS,
    /** Attempt rows, by {@code last_failed_at} (the event is long gone). */
    ATTEMPTS,
    /** Suspicion rows, by {@code raised_at} (left by an event the broker dead-lettered itself). */
    SUSPECTS
  }

  /**
   * Takes the schema's retention lock on this (auto-commit) session without waiting; true if taken.
   * It vanishes with the session.
   */
  boolean tryRetentionLock(Connection c) throws SQLException;

  /** Releases the retention lock taken by {@link #tryRetentionLock}. */
  void retentionUnlock(Connection c) throws SQLException;

  /** Deletes at most {@code limit} rows of {@code what} older than {@code before}; how many. */
  int deleteOld(Connection c, Retained what, Instant before, int limit) throws SQLException;
}
