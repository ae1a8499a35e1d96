package dev.once.internal;

import dev.once.Event;
import dev.once.jdbc.JdbcRows;
import dev.once.spi.RawMessage;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/** Small JDBC helpers shared by the store's classes. */
public final class Jdbc {
  private Jdbc() {}

  public static void bind(PreparedStatement ps, Object... params) throws SQLException {
    for (int i = 0; i < params.length; i++) {
      Object p = params[i];
      if (p instanceof Instant instant) {
        ps.setTimestamp(i + 1, Timestamp.from(instant));
      } else if (p == null) {
        ps.setNull(i + 1, Types.NULL);
      } else {
        ps.setObject(i + 1, p);
      }
    }
  }

  public static int update(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, params);
      return ps.executeUpdate();
    }
  }

  /** Runs a statement whose result (if any) is not needed, e.g. {@code SELECT pg_notify(...)}. */
  public static void execute(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, params);
      ps.execute();
    }
  }

  /** The first column of every row, as strings, added to {@code into}. */
  public static <C extends Collection<String>> C strings(
      Connection c, String sql, C into, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          into.add(rs.getString(1));
        }
      }
    }
    return into;
  }

  /** The first column of every row, as ints. */
  public static List<Integer> ints(Connection c, String sql, Object... params) throws SQLException {
    List<Integer> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getInt(1));
        }
      }
    }
    return out;
  }

  /** The first column of the first row as a long (0 if there is none). */
  public static long queryLong(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }

  /** The first column of the first row as a boolean (false if there is none). */
  public static boolean queryBoolean(Connection c, String sql, Object... params)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  /** A nullable timestamp column as an instant. */
  public static Instant instant(ResultSet rs, String column) throws SQLException {
    Timestamp t = rs.getTimestamp(column);
    return t == null ? null : t.toInstant();
  }

  public static Array longArray(Connection c, List<Long> values) throws SQLException {
    return c.createArrayOf("bigint", values.toArray(new Long[0]));
  }

  public static Array intArray(Connection c, List<Integer> values) throws SQLException {
    return c.createArrayOf("integer", values.toArray(new Integer[0]));
  }

  private static final PostgresFlavour POSTGRES = new PostgresFlavour();

  /** Headers as a flat text array: name, value, name, value, … */
  public static Array headers(Connection c, Map<String, String> headers) throws SQLException {
    return (Array) POSTGRES.encodeHeaders(c, headers);
  }

  /** Reads an event from the columns outbox and queue rows share. */
  public static Event event(ResultSet rs) throws SQLException {
    return JdbcRows.event(POSTGRES, rs);
  }

  /** What an outbox or queue row holds, undecoded (see {@link JdbcRows#raw}). */
  public static RawMessage raw(ResultSet rs) throws SQLException {
    return JdbcRows.raw(POSTGRES, rs);
  }

  public static void rollbackQuietly(Connection c) {
    try {
      if (c != null && !c.isClosed() && !c.getAutoCommit()) {
        c.rollback();
      }
    } catch (SQLException ignored) {
      // the connection is broken; the server rolls the transaction back by itself
    }
  }
}
