package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The commands that write (demo, reset) on a database a user's application shares: they work in the
 * namespace the URL names, as every command does, and refuse one where other consumers keep rows
 * unless told --force-shared. On PostgreSQL and MariaDB.
 */
class SharedDatabaseTest {

  @Test
  void theDemoInTheUrlsSchemaRefusesTheUsersRowsAndLeavesThemUntouchedOnPostgresql()
      throws Exception {
    try (TestDatabase user = TestDatabase.empty("local")) {
      demoLeavesTheUsersRows(user, TestDatabase.LOCAL_URL + "&currentSchema=" + user.schema());
    }
  }

  @Test
  void theDemoInTheUrlsDatabaseRefusesTheUsersRowsAndLeavesThemUntouchedOnMariaDb()
      throws Exception {
    try (TestDatabase user = TestDatabase.empty("mariadb")) {
      demoLeavesTheUsersRows(user, mariaDbUrl(user));
    }
  }

  @Test
  void resetRefusesANamespaceWithOtherConsumersRowsUnlessForcedOnPostgresql() throws Exception {
    try (TestDatabase user = TestDatabase.empty("local")) {
      resetRefusesUnlessForced(user, TestDatabase.LOCAL_URL);
    }
  }

  @Test
  void resetRefusesANamespaceWithOtherConsumersRowsUnlessForcedOnMariaDb() throws Exception {
    try (TestDatabase user = TestDatabase.empty("mariadb")) {
      resetRefusesUnlessForced(user, mariaDbUrl(user));
    }
  }

  @Test
  void aSchemaNameThatIsNotAnIdentifierIsOneLineNamingTheOption() {
    for (String command : List.of("reset", "check", "demo")) {
      Cli.Run r = Cli.run(command, "--schema", "x; DROP TABLE once_inbox", "--db", LocalServer.URL);
      assertThat(r.exit()).as(command).isEqualTo(2);
      assertThat(r.errLines())
          .as(command)
          .containsExactly(
              "once: --schema must be 1 to 63 lower-case letters, digits and underscores, not"
                  + " starting with a digit, was 'x; DROP TABLE once_inbox'");
    }
  }

  private static void demoLeavesTheUsersRows(TestDatabase user, String url) throws Exception {
    appliedByOnce(user);
    usersRows(user);
    List<String> before = snapshot(user);

    Cli.Run demo = Cli.run("demo", "--events", "20", "--crash-rate", "0.05", "--db", url);

    assertThat(demo.exit()).as(demo.out() + demo.err()).isEqualTo(2);
    assertThat(demo.err())
        .contains("once: demo refused: the Once tables of")
        .contains(user.schema())
        .contains("consumer billing")
        .contains("--schema");
    assertThat(snapshot(user)).as("the user's Once rows").isEqualTo(before);
  }

  private static void resetRefusesUnlessForced(TestDatabase user, String url) throws Exception {
    appliedByOnce(user);
    usersRows(user);
    List<String> before = snapshot(user);

    Cli.Run refused = Cli.run("reset", "--db", url, "--schema", user.schema());

    assertThat(refused.exit()).as(refused.out() + refused.err()).isEqualTo(2);
    assertThat(refused.err())
        .contains("once: reset refused: the Once tables of")
        .contains("consumer billing (1 marker, 1 dead letter)")
        .contains("destination invoices (1 outbox row)")
        .contains("--schema", "--force-shared")
        .doesNotContain("secret-card"); // names and counts, never a payload
    assertThat(snapshot(user)).as("nothing deleted by a refused reset").isEqualTo(before);

    Cli.Run forced = Cli.run("reset", "--db", url, "--schema", user.schema(), "--force-shared");

    assertThat(forced.exit()).as(forced.out() + forced.err()).isZero();
    assertThat(forced.err()).contains("--force-shared", "consumer billing");
    List<String> others =
        before.stream()
            .filter(
                row ->
                    row.startsWith("once_inbox|billing|invoice-7")
                        || row.startsWith("once_outbox|invoice-1|invoices|")
                        || row.startsWith("once_dead_letter|billing|invoice-8|"))
            .toList();
    assertThat(others).hasSize(3);
    assertThat(snapshot(user)).as("the demo's names cleared, the others kept").isEqualTo(others);
  }

  /**
   * What a user's application keeps beside: markers of its own consumers, one of them called
   * warehouse like the demo's; outbox rows, one to a destination called orders; a dead letter.
   */
  private static void usersRows(TestDatabase db) {
    db.execute(
        "INSERT INTO once_inbox (consumer_id, event_id) VALUES ('billing', 'invoice-7'),"
            + " ('warehouse', 'order-paid:1'), ('warehouse', 'user-order-2')");
    String headers = db.isMariaDb() ? ", headers" : "";
    String noHeaders = db.isMariaDb() ? ", ''" : "";
    db.execute(
        "INSERT INTO once_outbox (event_id, destination, event_type, payload, key_partition"
            + headers
            + ") VALUES ('invoice-1', 'invoices', 'Invoice', "
            + payload(db)
            + ", 0"
            + noHeaders
            + "), ('user-order-2', 'orders', 'UserOrder', "
            + payload(db)
            + ", 0"
            + noHeaders
            + ")");
    db.execute(
        "INSERT INTO once_dead_letter (consumer_id, event_id, destination, event_type, payload"
            + headers
            + ", attempts, first_failed_at, last_failed_at, error_class, error_fingerprint,"
            + " error_message, dead_at) VALUES ('billing', 'invoice-8', 'invoices', 'Invoice', "
            + payload(db)
            + noHeaders
            + ", 3, "
            + now(db)
            + ", "
            + now(db)
            + ", 'java.lang.IllegalStateException', 'f1', 'boom', "
            + now(db)
            + ")");
  }

  private static String payload(TestDatabase db) {
    return db.isMariaDb()
        ? "'{\"card\":\"secret-card\"}'"
        : "convert_to('{\"card\":\"secret-card\"}', 'UTF8')";
  }

  private static String now(TestDatabase db) {
    return db.isMariaDb() ? "UTC_TIMESTAMP(6)" : "now()";
  }

  /** The user's rows of the Once tables, each as table|columns, in a stable order. */
  private static List<String> snapshot(TestDatabase db) throws SQLException {
    List<String> rows = new ArrayList<>();
    rows.addAll(rows(db, "once_inbox", "SELECT consumer_id, event_id FROM once_inbox"));
    rows.addAll(
        rows(
            db,
            "once_outbox",
            "SELECT event_id, destination, event_type, payload, sent_at FROM once_outbox"));
    rows.addAll(
        rows(
            db,
            "once_dead_letter",
            "SELECT consumer_id, event_id, status, payload FROM once_dead_letter"));
    return rows;
  }

  private static List<String> rows(TestDatabase db, String table, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql + " ORDER BY 1, 2")) {
      ResultSetMetaData meta = rs.getMetaData();
      while (rs.next()) {
        StringBuilder row = new StringBuilder(table);
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          Object value = rs.getObject(i);
          if (value instanceof byte[] bytes) {
            value = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
          }
          if (value != null || !meta.getColumnName(i).equalsIgnoreCase("sent_at")) {
            row.append('|').append(value);
          }
        }
        out.add(row.toString());
      }
    }
    return out;
  }

  /**
   * The Once tables as {@code once schema apply} leaves them (with their history, which the
   * commands that write apply on top of), in a test database made without them.
   */
  private static void appliedByOnce(TestDatabase db) {
    String url =
        db.isMariaDb() ? mariaDbUrl(db) : TestDatabase.LOCAL_URL + "&currentSchema=" + db.schema();
    Cli.Run applied = Cli.run("schema", "apply", "--db", url, "--schema", db.schema());
    assertThat(applied.exit()).as(applied.err()).isZero();
  }

  private static String mariaDbUrl(TestDatabase db) {
    return "jdbc:mariadb://127.0.0.1:3306/" + db.schema() + "?user=root";
  }
}
