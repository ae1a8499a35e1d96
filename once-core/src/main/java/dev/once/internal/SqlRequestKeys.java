package dev.once.internal;

import dev.once.RequestKey;
import dev.once.StoredResponse;
import dev.once.spi.RequestKeysDialect;
import dev.once.spi.Sql;
import dev.once.spi.SqlFlavour;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The request-key statements both databases share, over the dialect's {@link Sql}; each subclass
 * gives how it claims a key without waiting on another holder and deletes a batch.
 */
abstract class SqlRequestKeys implements RequestKeysDialect {
  final Sql sql;

  SqlRequestKeys(SqlFlavour flavour) {
    this.sql = new Sql(flavour);
  }

  int update(Connection c, String statement, Object... params) throws SQLException {
    return sql.update(c, statement, params);
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
