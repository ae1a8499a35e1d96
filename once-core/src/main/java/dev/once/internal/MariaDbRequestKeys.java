package dev.once.internal;

import dev.once.RequestKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Request keys on MariaDB. The key is held by the row lock of the claiming insert; a second
 * request's insert is made with {@code innodb_lock_wait_timeout} 0 for that statement only, so that
 * it fails at once (1205) instead of waiting for the first request's transaction. A stored key
 * fails it with 1062. Needs MariaDB's {@code SET STATEMENT} (MySQL has no such statement).
 */
public class MariaDbRequestKeys extends SqlRequestKeys {

  public MariaDbRequestKeys(MariaDbFlavour flavour) {
    super(flavour);
  }

  /** ER_LOCK_WAIT_TIMEOUT: another transaction holds the row. */
  static final int LOCK_WAIT_TIMEOUT = 1205;

  @Override
  public boolean claim(
      Connection c, RequestKey key, String fingerprint, Instant now, Instant expiresAt)
      throws SQLException {
    try {
      return update(
              c,
              """
              SET STATEMENT innodb_lock_wait_timeout = 0 FOR
              INSERT INTO once_request (scope, request_key, fingerprint, created_at, expires_at)
              VALUES (?, ?, ?, ?, ?)
              """,
              key.scope(),
              key.key(),
              fingerprint,
              now,
              expiresAt)
          == 1;
    } catch (SQLException e) {
      if (sql.flavour().isDuplicateKey(e) || e.getErrorCode() == LOCK_WAIT_TIMEOUT) {
        return false;
      }
      throw e;
    }
  }

  @Override
  public int deleteExpired(Connection c, Instant now, int limit) throws SQLException {
    return update(c, "DELETE FROM once_request WHERE expires_at < ? LIMIT ?", now, limit);
  }
}
