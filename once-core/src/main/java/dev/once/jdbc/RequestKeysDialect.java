package dev.once.jdbc;

import dev.once.RequestKey;
import dev.once.StoredResponse;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;

/**
 * The request-key part of a dialect: {@code once_request} rows. Only users of {@code
 * once.requestKeys()} need it. Statements run in the caller's transaction.
 */
public interface RequestKeysDialect {

  /**
   * Refuses the database {@code c} is connected to if it cannot run request keys, with a {@link
   * dev.once.ConfigurationException} that names it; called once, when request keys are built.
   */
  void check(Connection c) throws SQLException;

  /**
   * Inserts the key with its fingerprint, in this transaction, unless it is stored or another open
   * transaction holds it; never waits for that other transaction. True if inserted: the caller
   * holds the key until its transaction ends. False if the key is stored (then {@link #find} sees
   * it) or held (then {@link #find} sees nothing). One statement.
   */
  boolean claim(Connection c, RequestKey key, String fingerprint, Instant now, Instant expiresAt)
      throws SQLException;

  /** The stored key, or null if there is none that this transaction can see. */
  StoredRequest find(Connection c, RequestKey key) throws SQLException;

  /** Stores the response of a key this transaction claimed. One statement. */
  void complete(Connection c, RequestKey key, StoredResponse response) throws SQLException;

  /** Deletes up to {@code limit} keys that expired before {@code now}; returns how many. */
  int deleteExpired(Connection c, Instant now, int limit) throws SQLException;

  /**
   * A stored key as read back.
   *
   * @param response null if the row was claimed but its response not stored: only a row written by
   *     something other than {@code RequestKeys} (which stores both in one transaction)
   */
  record StoredRequest(String fingerprint, StoredResponse response, Instant expiresAt) {}
}
