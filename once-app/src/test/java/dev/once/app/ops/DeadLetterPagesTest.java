package dev.once.app.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.app.ops.DeadLettersCommandTest.Run;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code once dead-letters list} pages by id ({@code --limit}, {@code --after}) without reading
 * payloads, and {@code replay --beyond-horizon} is the deliberate override of the replay horizon.
 * On PostgreSQL and MariaDB.
 */
class DeadLetterPagesTest {
  private static final Pattern ROW = Pattern.compile("(?m)^(\\d+) +warehouse +(\\S+)");
  private static final Pattern MORE =
      Pattern.compile(
          "(?m)^more: once dead-letters list --after (\\d+) \\(with the same filters\\)$");

  @Test
  void pagesCoverEveryDeadLetterExactlyOnceOnPostgresql() {
    try (TestDatabase db = TestDatabase.local()) {
      pagesCoverEveryDeadLetterOnce(db, url(db));
    }
  }

  @Test
  void pagesCoverEveryDeadLetterExactlyOnceOnMariaDb() {
    try (TestDatabase db = TestDatabase.mariadb()) {
      pagesCoverEveryDeadLetterOnce(db, url(db));
    }
  }

  /**
   * The SQL-level check: a database user who may read every column of once_dead_letter but the
   * payload and the headers lists them all the same; {@code show} (which prints the payload's size
   * and hash) is refused by the database.
   */
  @Test
  void listReadsNoPayloadColumnOnPostgresql() throws Exception {
    try (TestDatabase db = TestDatabase.local()) {
      for (int i = 1; i <= 3; i++) {
        deadLetter(db, "order-paid:" + i, false);
      }
      String role = "once_lister_" + ProcessHandle.current().pid();
      exec(
          TestDatabase.LOCAL_URL,
          "CREATE ROLE " + role + " LOGIN",
          "GRANT USAGE ON SCHEMA " + db.schema() + " TO " + role,
          "GRANT SELECT ON ALL TABLES IN SCHEMA " + db.schema() + " TO " + role,
          "REVOKE SELECT ON " + db.schema() + ".once_dead_letter FROM " + role,
          "GRANT SELECT (id, consumer_id, event_id, destination, event_key, event_type, attempts,"
              + " first_failed_at, last_failed_at, error_class, error_fingerprint, error_message,"
              + " final_attempt_crashed, status, dead_at, resolved_at) ON "
              + db.schema()
              + ".once_dead_letter TO "
              + role);
      try {
        String asRole =
            "jdbc:postgresql://127.0.0.1:5432/test?user=" + role + "&currentSchema=" + db.schema();

        Run list =
            DeadLettersCommandTest.run(
                "dead-letters", "list", "--db", asRole, "--schema", db.schema());
        Run show =
            DeadLettersCommandTest.run(
                "dead-letters", "show", "--db", asRole, "--schema", db.schema());

        assertThat(list.exit()).as(list.err()).isZero();
        assertThat(ids(list.out())).hasSize(3);
        assertThat(show.exit()).as("show reads the payload").isNotZero();
        assertThat(show.err()).contains("permission denied");
      } finally {
        exec(TestDatabase.LOCAL_URL, "DROP OWNED BY " + role, "DROP ROLE " + role);
      }
    }
  }

  @Test
  void aReplayBeyondTheHorizonIsRefusedAndDoneWithBeyondHorizonOnPostgresql() {
    try (TestDatabase db = TestDatabase.local()) {
      replayBeyondHorizon(db, url(db));
    }
  }

  @Test
  void aReplayBeyondTheHorizonIsRefusedAndDoneWithBeyondHorizonOnMariaDb() {
    try (TestDatabase db = TestDatabase.mariadb()) {
      replayBeyondHorizon(db, url(db));
    }
  }

  private static void pagesCoverEveryDeadLetterOnce(TestDatabase db, String url) {
    for (int i = 1; i <= 25; i++) {
      deadLetter(db, "order-paid:" + i, false);
    }
    List<String> seen = new ArrayList<>();
    List<Integer> sizes = new ArrayList<>();
    String after = "0";
    for (int page = 0; after != null; page++) {
      assertThat(page).as("pages").isLessThan(10);
      Run r =
          DeadLettersCommandTest.run(
              "dead-letters",
              "list",
              "--db",
              url,
              "--schema",
              db.schema(),
              "--limit",
              "10",
              "--after",
              after);
      assertThat(r.exit()).as(r.err()).isZero();
      List<String> events = events(r.out());
      sizes.add(events.size());
      seen.addAll(events);
      Matcher more = MORE.matcher(r.out());
      after = more.find() ? more.group(1) : null;
      if (after != null) {
        assertThat(Long.parseLong(after)).isEqualTo(ids(r.out()).get(events.size() - 1));
      }
    }
    assertThat(sizes).containsExactly(10, 10, 5);
    List<String> all = new ArrayList<>();
    for (int i = 1; i <= 25; i++) {
      all.add("order-paid:" + i);
    }
    assertThat(seen).as("every dead letter once, oldest first").isEqualTo(all);

    Run bad =
        DeadLettersCommandTest.run(
            "dead-letters", "list", "--db", url, "--schema", db.schema(), "--after", "-1");
    assertThat(bad.exit()).isEqualTo(2);
    assertThat(bad.err()).contains("--after must be an id 0 or more, was -1");
  }

  private static void replayBeyondHorizon(TestDatabase db, String url) {
    db.execute(
        "INSERT INTO once_queue_binding (destination, consumer_group) VALUES ('orders',"
            + " 'warehouse')");
    deadLetter(db, "order-paid:old", true);
    long id =
        ids(DeadLettersCommandTest.run("dead-letters", "list", "--db", url, "--schema", db.schema())
                .out())
            .get(0);

    Run refused =
        DeadLettersCommandTest.run(
            "dead-letters",
            "replay",
            "--db",
            url,
            "--schema",
            db.schema(),
            "" + id,
            "--reason",
            "fixed");

    assertThat(refused.exit()).isEqualTo(2);
    assertThat(refused.err()).contains("replay refused", "older than the replay horizon");
    assertThat(refused.err()).contains("--beyond-horizon");
    assertThat(db.count("SELECT count(*) FROM once_queue")).as("nothing replayed").isZero();
    assertThat(db.count("SELECT count(*) FROM once_dead_letter WHERE status = 'dead'"))
        .isEqualTo(1);

    Run replayed =
        DeadLettersCommandTest.run(
            "dead-letters",
            "replay",
            "--db",
            url,
            "--schema",
            db.schema(),
            "" + id,
            "--beyond-horizon",
            "--reason",
            "effects checked by hand");

    assertThat(replayed.exit()).as(replayed.err()).isZero();
    assertThat(replayed.out()).contains("order-paid:old");
    assertThat(db.count("SELECT count(*) FROM once_queue WHERE event_id = 'order-paid:old'"))
        .as("replayed to the group that failed")
        .isEqualTo(1);
    assertThat(db.count("SELECT count(*) FROM once_dead_letter WHERE status = 'replayed'"))
        .isEqualTo(1);
    assertThat(
            db.count(
                "SELECT count(*) FROM once_dead_letter_action WHERE action = 'replay'"
                    + " AND reason = 'effects checked by hand'"))
        .isEqualTo(1);
  }

  /** A dead letter of consumer warehouse; {@code old}: dead 8 days ago (the horizon is 7). */
  private static void deadLetter(TestDatabase db, String eventId, boolean old) {
    String dead =
        db.isMariaDb()
            ? (old ? "UTC_TIMESTAMP(6) - INTERVAL 8 DAY" : "UTC_TIMESTAMP(6)")
            : (old ? "now() - interval '8 days'" : "now()");
    db.execute(
        "INSERT INTO once_dead_letter (consumer_id, event_id, destination, event_key, event_type,"
            + " payload"
            + (db.isMariaDb() ? ", headers" : "")
            + ", attempts, first_failed_at, last_failed_at, error_class, error_fingerprint,"
            + " error_message, dead_at) VALUES ('warehouse', '"
            + eventId
            + "', 'orders', 'k', 'OrderPaid', "
            + (db.isMariaDb() ? "'{}', ''" : "'\\x7b7d'")
            + ", 3, "
            + dead
            + ", "
            + dead
            + ", 'java.lang.IllegalStateException', 'f1', 'boom', "
            + dead
            + ")");
  }

  private static String url(TestDatabase db) {
    return db.isMariaDb()
        ? "jdbc:mariadb://127.0.0.1:3306/" + db.schema() + "?user=root"
        : TestDatabase.LOCAL_URL + "&currentSchema=" + db.schema();
  }

  private static List<String> events(String listing) {
    List<String> out = new ArrayList<>();
    Matcher m = ROW.matcher(listing);
    while (m.find()) {
      out.add(m.group(2));
    }
    return out;
  }

  private static List<Long> ids(String listing) {
    List<Long> out = new ArrayList<>();
    Matcher m = ROW.matcher(listing);
    while (m.find()) {
      out.add(Long.parseLong(m.group(1)));
    }
    return out;
  }

  private static void exec(String url, String... statements) throws Exception {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    }
  }
}
