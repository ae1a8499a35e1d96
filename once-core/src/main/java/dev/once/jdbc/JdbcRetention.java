package dev.once.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;

/** Retention in standard SQL: the flavour's limited deletes and session lock. */
public class JdbcRetention implements RetentionDialect {
  /** The name of the janitor's lock, one per schema. */
  static final String LOCK = "once_retention";

  protected final SqlFlavour flavour;
  protected final Sql sql;

  public JdbcRetention(SqlFlavour flavour) {
    this.flavour = flavour;
    this.sql = new Sql(flavour);
  }

  @Override
  public boolean tryRetentionLock(Connection c) throws SQLException {
    return flavour.tryLock(c, LOCK);
  }

  @Override
  public void retentionUnlock(Connection c) throws SQLException {
    flavour.unlock(c, LOCK);
  }

  @Override
  public int deleteOld(Connection c, Retained what, Instant before, int limit) throws SQLException {
    String delete =
        switch (what) {
          case MARKERS ->
              flavour.deleteOldest("once_inbox", "consumer_id, event_id", "processed_at < ?", null);
          case SENT_OUTBOX ->
              flavour.deleteOldest(
                  "once_outbox", "id", "sent_at IS NOT NULL AND sent_at < ?", "sent_at");
          case RESOLVED_DEAD_LETTERS ->
              flavour.deleteOldest(
                  "once_dead_letter", "id", "status <> 'dead' AND resolved_at < ?", null);
          case ATTEMPTS ->
              flavour.deleteOldest(
                  "once_attempt", "consumer_id, event_id", "last_failed_at < ?", null);
          case SUSPECTS ->
              flavour.deleteOldest("once_suspect", "consumer_id, event_id", "raised_at < ?", null);
        };
    return sql.update(c, delete, before, limit);
  }
}
