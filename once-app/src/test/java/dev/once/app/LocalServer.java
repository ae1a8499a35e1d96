package dev.once.app;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/** The local PostgreSQL server: skipped when unreachable, except in CI where that fails. */
final class LocalServer {
  static final String URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  private LocalServer() {}

  static String url() {
    try (Connection c = DriverManager.getConnection(URL)) {
      return URL;
    } catch (SQLException e) {
      String message =
          "local PostgreSQL at 127.0.0.1:5432 not reachable ("
              + e.getMessage()
              + "): start it with 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start'";
      if ("true".equals(System.getenv("CI"))) {
        Assertions.fail(message);
      }
      Assumptions.abort(message);
      return null;
    }
  }
}
