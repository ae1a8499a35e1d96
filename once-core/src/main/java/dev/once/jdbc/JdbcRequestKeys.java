package dev.once.jdbc;

import dev.once.RequestKey;
import dev.once.StoredResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The request-key part in standard SQL ({@code once_request}). A key is claimed with one INSERT
 * that gives up at once instead of waiting when another open transaction holds the key ({@link
 * SqlFlavour#insertWithoutWaiting}): a stored key fails it as a duplicate, a held one as a lock not
 * available, and either way the claim is false. A database whose flavour has no such INSERT is
 * refused by {@link #check} when request keys are built.
 */
public class JdbcRequestKeys implements RequestKeysDialect {
  private static final String CLAIM =
      """
      INSERT INTO once_request (scope, request_key, fingerprint, created_at, expires_at)
      VALUES (?, ?, ?, ?, ?)
      """;

  protected final Sql sql;

  public JdbcRequestKeys(SqlFlavour flavour) {
    this.sql = new Sql(flavour);
  }

  protected int update(Connection c, String statement, Object... params) throws SQLException {
    return sql.update(c, statement, params);
  }

  /** Refuses the database if its flavour cannot claim a key without waiting. */
  @Override
  public void check(Connection c) throws SQLException {
    sql.flavour().insertWithoutWaiting(c, CLAIM);
  }

  @Override
  public boolean claim(
      Connection c, RequestKey key, String fingerprint, Instant now, Instant expiresAt)
      throws SQLException {
    try {
      return update(
              c,
              sql.flavour().insertWithoutWaiting(c, CLAIM),
              key.scope(),
              key.key(),
              fingerprint,
              now,
              expiresAt)
          == 1;
    } catch (SQLException e) {
      if (sql.flavour().isDuplicateKey(e) || sql.flavour().isLockNotAvailable(e)) {
        return false;
      }
      throw e;
    }
  }

  @Override
  public int deleteExpired(Connection c, Instant now, int limit) throws SQLException {
    return update(
        c,
        sql.flavour().deleteOldest("once_request", "scope, request_key", "expires_at < ?", null),
        now,
        limit);
  }

  @Override
  public StoredRequest find(Connection c, RequestKey key) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            SELECT fingerprint, status, headers, body, expires_at
              FROM once_request
             WHERE scope = ? AND request_key = ?
            """)) {
      sql.bind(ps, key.scope(), key.key());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        int status = rs.getInt("status");
        StoredResponse response =
            rs.wasNull()
                ? null
                : new StoredResponse(status, headers(rs.getString("headers")), rs.getBytes("body"));
        return new StoredRequest(
            rs.getString("fingerprint"), response, sql.instant(rs, "expires_at"));
      }
    }
  }

  @Override
  public void complete(Connection c, RequestKey key, StoredResponse r) throws SQLException {
    update(
        c,
        """
        UPDATE once_request SET status = ?, headers = ?, body = ?
         WHERE scope = ? AND request_key = ?
        """,
        r.status(),
        headers(r.headers()),
        r.body(),
        key.scope(),
        key.key());
  }

  /** One {@code name: value} line per value; names and values hold no CR or LF. */
  static String headers(Map<String, List<String>> headers) {
    StringBuilder s = new StringBuilder();
    headers.forEach(
        (name, values) -> values.forEach(v -> s.append(name).append(": ").append(v).append('\n')));
    return s.toString();
  }

  static Map<String, List<String>> headers(String text) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    if (text == null) {
      return headers;
    }
    for (String line : text.split("\n")) {
      int colon = line.indexOf(": ");
      if (colon > 0) {
        headers
            .computeIfAbsent(line.substring(0, colon), k -> new ArrayList<>())
            .add(line.substring(colon + 2));
      }
    }
    return headers;
  }
}
