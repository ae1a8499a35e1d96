package dev.once.internal;

import dev.once.internal.postgres.PostgresFlavour;
import dev.once.jdbc.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;

/**
 * Small JDBC helpers of the machinery and of PostgreSQL's own statements: {@link Sql} over the
 * PostgreSQL flavour.
 */
public final class Jdbc {
  private Jdbc() {}

  private static final Sql POSTGRES = new Sql(new PostgresFlavour());

  public static void bind(PreparedStatement ps, Object... params) throws SQLException {
    POSTGRES.bind(ps, params);
  }

  public static int update(Connection c, String sql, Object... params) throws SQLException {
    return POSTGRES.update(c, sql, params);
  }

  /** Runs a statement whose result (if any) is not needed, e.g. {@code SELECT pg_notify(...)}. */
  public static void execute(Connection c, String sql, Object... params) throws SQLException {
    POSTGRES.execute(c, sql, params);
  }

  /** The first column of every row, as strings, added to {@code into}. */
  public static <C extends Collection<String>> C strings(
      Connection c, String sql, C into, Object... params) throws SQLException {
    return POSTGRES.strings(c, sql, into, params);
  }

  /** The first column of every row, as ints. */
  public static List<Integer> ints(Connection c, String sql, Object... params) throws SQLException {
    return POSTGRES.ints(c, sql, params);
  }

  /** The first column of the first row as a boolean (false if there is none). */
  public static boolean queryBoolean(Connection c, String sql, Object... params)
      throws SQLException {
    return Boolean.TRUE.equals(POSTGRES.first(c, sql, rs -> rs.getBoolean(1), params));
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
