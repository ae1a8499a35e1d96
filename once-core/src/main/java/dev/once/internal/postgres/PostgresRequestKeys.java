package dev.once.internal.postgres;

import dev.once.RequestKey;
import dev.once.jdbc.JdbcRequestKeys;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Request keys on PostgreSQL. The key is held by a transaction-scoped advisory lock on its hash (in
 * this schema's space), taken by the insert itself with a try: a second request never waits on the
 * first one's unique-index entry, it finds the lock taken and inserts nothing (the standard form's
 * statement, one that gives up on a held key, does not exist on PostgreSQL).
 */
public class PostgresRequestKeys extends JdbcRequestKeys {

  public PostgresRequestKeys(PostgresFlavour flavour) {
    super(flavour);
  }

  /** Claims with the advisory lock, not with the flavour's INSERT: nothing to refuse. */
  @Override
  public void check(Connection c) {}

  @Override
  public boolean claim(
      Connection c, RequestKey key, String fingerprint, Instant now, Instant expiresAt)
      throws SQLException {
    return update(
            c,
            """
            INSERT INTO once_request (scope, request_key, fingerprint, created_at, expires_at)
            SELECT ?, ?, ?, ?, ?
             WHERE pg_try_advisory_xact_lock(
                     hashtextextended(current_schema() || '.once_request.' || ?, 0))
            ON CONFLICT (scope, request_key) DO NOTHING
            """,
            key.scope(),
            key.key(),
            fingerprint,
            now,
            expiresAt,
            key.scope().length() + ":" + key.scope() + key.key())
        == 1;
  }

  @Override
  public int deleteExpired(Connection c, Instant now, int limit) throws SQLException {
    return update(
        c,
        """
        DELETE FROM once_request
         WHERE ctid = ANY(ARRAY(SELECT ctid FROM once_request WHERE expires_at < ? LIMIT ?))
        """,
        now,
        limit);
  }
}
