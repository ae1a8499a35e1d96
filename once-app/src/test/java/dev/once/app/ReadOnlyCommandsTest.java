package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.app.Cli.Run;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Commands that only look — status, dead-letters list and show, check — never apply migrations:
 * pointed at a schema without the Once tables they say so and leave it as it was. On PostgreSQL and
 * MariaDB.
 */
class ReadOnlyCommandsTest {

  @Test
  void readOnlyCommandsOnAPostgresqlSchemaWithoutOnceTablesChangeNothingAndSaySo()
      throws Exception {
    String base = LocalServer.url();
    String schema = "harden_ro_" + ProcessHandle.current().pid();
    try (Connection c = DriverManager.getConnection(base);
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
      try {
        assertReadOnly(base + "&currentSchema=" + schema, base, schema, s);
      } finally {
        s.execute("DROP SCHEMA " + schema + " CASCADE");
      }
    }
  }

  @Test
  void readOnlyCommandsOnAnEmptyMariaDbDatabaseChangeNothingAndSaySo() throws Exception {
    String server = "jdbc:mariadb://127.0.0.1:3306/test?user=root";
    try (Connection probe = DriverManager.getConnection(server)) {
      probe.isValid(2);
    } catch (java.sql.SQLException e) {
      dev.once.test.Services.unavailable(
          "local MariaDB",
          "127.0.0.1:3306",
          e,
          "start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd");
    }
    String schema = "harden_ro_" + ProcessHandle.current().pid();
    try (Connection c = DriverManager.getConnection(server);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + schema);
      try {
        String url = "jdbc:mariadb://127.0.0.1:3306/" + schema + "?user=root";
        assertReadOnly(url, url, schema, s);
      } finally {
        s.execute("DROP DATABASE " + schema);
      }
    }
  }

  @Test
  void checkOnANamespaceThatIsNotThereSaysSoAndCreatesNothing() throws Exception {
    String base = LocalServer.url();
    String schema = "harden_none_" + ProcessHandle.current().pid();
    Run run = Cli.run("check", "--db", base, "--schema", schema);
    assertThat(run.exit()).isNotZero();
    assertThat(run.err()).contains("schema " + schema + " not found", "once demo");
    try (Connection c = DriverManager.getConnection(base);
        Statement s = c.createStatement()) {
      assertThat(tables(s, "SELECT count(*) FROM pg_namespace WHERE nspname = '" + schema + "'"))
          .as("schema created")
          .isZero();
    }
  }

  /**
   * Runs each read-only command on {@code url} (whose schema is {@code schema}, empty) — check with
   * {@code --schema} on {@code base} — and asserts the error and that no table appeared.
   */
  private static void assertReadOnly(String url, String base, String schema, Statement s)
      throws Exception {
    for (List<String> command :
        List.of(
            List.of("status", "--db", url, "--schema", schema),
            List.of("dead-letters", "list", "--db", url, "--schema", schema),
            List.of("dead-letters", "show", "1", "--db", url, "--schema", schema),
            List.of("check", "--db", base, "--schema", schema))) {
      Run run = Cli.run(command.toArray(String[]::new));
      assertThat(run.exit()).as(String.join(" ", command)).isNotZero();
      assertThat(run.out() + run.err())
          .as(String.join(" ", command))
          .contains("not found in schema '" + schema + "'")
          .contains("once schema apply");
      assertThat(
              tables(
                  s,
                  "SELECT count(*) FROM information_schema.tables WHERE table_schema = '"
                      + schema
                      + "'"))
          .as("tables created by " + String.join(" ", command))
          .isZero();
    }
  }

  private static long tables(Statement s, String sql) throws Exception {
    try (ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
