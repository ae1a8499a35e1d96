package dev.once.app;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A schema of its own on the local PostgreSQL for a bench test: the bench clears and vacuums its
 * tables at every phase, and another session's bench test on the same schema would clear them under
 * this one.
 */
final class BenchSchema implements AutoCloseable {
  private final String name;

  BenchSchema() throws SQLException {
    this.name =
        "bench_" + ProcessHandle.current().pid() + "_" + Long.toHexString(System.nanoTime());
    sql("CREATE SCHEMA " + name);
  }

  /** The JDBC URL of the local server with this schema as the current one. */
  String url() {
    return LocalServer.url() + "&currentSchema=" + name;
  }

  @Override
  public void close() throws SQLException {
    sql("DROP SCHEMA " + name + " CASCADE");
  }

  private static void sql(String statement) throws SQLException {
    try (Connection c = DriverManager.getConnection(LocalServer.url());
        Statement s = c.createStatement()) {
      s.execute(statement);
    }
  }
}
