package dev.once.internal;

import dev.once.Event;
import dev.once.jdbc.JdbcRows;
import dev.once.spi.RawMessage;
import dev.once.spi.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * JDBC on MariaDB/MySQL: instants bound and read as UTC {@code DATETIME(6)} values (whatever the
 * JVM's or the server's time zone), headers as URL-encoded text, lists as {@code IN (?, ?, …)}.
 */
final class MariaDbJdbc {
  private MariaDbJdbc() {}

  static final MariaDbFlavour FLAVOUR = new MariaDbFlavour();
  private static final Sql SQL = new Sql(FLAVOUR);

  /** A parked outbox row's next attempt: never (the flavour's {@code never()}). */
  static final Instant NEVER = Instant.parse("9999-12-31T00:00:00Z");

  static void bind(PreparedStatement ps, Object... params) throws SQLException {
    for (Object p : params) {
      if (p instanceof List<?> list) {
        throw new IllegalArgumentException("bind lists with in(): " + list);
      }
    }
    SQL.bind(ps, params);
  }

  static int update(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, params);
      return ps.executeUpdate();
    }
  }

  /**
   * Runs an INSERT; false if it failed only because a unique key holds the value already (the
   * statement is rolled back, the transaction goes on). Every other error is thrown.
   */
  static boolean insertUnlessDuplicate(Connection c, String sql, Object... params)
      throws SQLException {
    try {
      return update(c, sql, params) > 0;
    } catch (SQLException e) {
      if (FLAVOUR.isDuplicateKey(e)) {
        return false;
      }
      throw e;
    }
  }

  /** {@code ?, ?, ?} for n values. */
  static String in(int n) {
    return String.join(", ", Collections.nCopies(n, "?"));
  }

  /** The parameters {@code head}, then each of {@code list}, then {@code tail}. */
  static Object[] params(List<Object> head, List<?> list, Object... tail) {
    List<Object> all = new ArrayList<>(head);
    all.addAll(list);
    all.addAll(List.of(tail));
    return all.toArray();
  }

  static Instant instant(ResultSet rs, String column) throws SQLException {
    return FLAVOUR.readInstant(rs, column);
  }

  static String headers(Map<String, String> headers) throws SQLException {
    return (String) FLAVOUR.encodeHeaders(null, headers);
  }

  /** Reads a dead letter's event (written by Once, so well formed). */
  static Event event(ResultSet rs) throws SQLException {
    return JdbcRows.event(FLAVOUR, rs);
  }

  /** What an outbox or queue row holds, undecoded: it may have been written by anyone. */
  static RawMessage raw(ResultSet rs) throws SQLException {
    return JdbcRows.raw(FLAVOUR, rs);
  }
}
