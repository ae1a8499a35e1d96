package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.app.Cli.Run;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * Commands that only look — status, dead-letters list — never apply migrations: pointed at a schema
 * without the Once tables they say so and leave it as it was.
 */
class ReadOnlyCommandsTest {

  @Test
  void statusAndDeadLettersListOnASchemaWithoutOnceTablesChangeNothingAndSaySo() throws Exception {
    String base = LocalServer.url();
    String schema = "harden_ro_" + ProcessHandle.current().pid();
    try (Connection c = DriverManager.getConnection(base);
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
      try {
        String url = base + "&currentSchema=" + schema;
        for (String[] command :
            new String[][] {
              {"status", "--db", url}, {"dead-letters", "list", "--db", url},
            }) {
          Run run = Cli.run(command);
          assertThat(run.exit()).as(String.join(" ", command)).isNotZero();
          assertThat(run.out() + run.err())
              .contains("not found in schema '" + schema + "'")
              .contains("once schema apply");
          try (ResultSet rs =
              s.executeQuery(
                  "SELECT count(*) FROM information_schema.tables WHERE table_schema = '"
                      + schema
                      + "'")) {
            rs.next();
            assertThat(rs.getLong(1)).as("tables created by " + command[0]).isZero();
          }
        }
      } finally {
        s.execute("DROP SCHEMA " + schema + " CASCADE");
      }
    }
  }
}
