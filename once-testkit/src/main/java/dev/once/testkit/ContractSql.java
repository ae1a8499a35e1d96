package dev.once.testkit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/** The two statements the contracts run on the side: a statement, and a count. */
final class ContractSql {
  private ContractSql() {}

  static void execute(DataSource dataSource, String sql) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.execute();
    }
  }

  /** The first column of the one row {@code sql} returns, with {@code params} bound in order. */
  static long count(DataSource dataSource, String sql, Object... params) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
