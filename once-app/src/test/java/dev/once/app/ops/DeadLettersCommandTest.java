package dev.once.app.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.app.Main;
import dev.once.test.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code once dead-letters} as an operator types it: the ids {@code list} prints are what {@code
 * show}, {@code replay} and {@code discard} take, and a dead letter whose final attempt crashed
 * says so beside its real error.
 */
class DeadLettersCommandTest {
  private static int schemas;
  private String schema;
  private String url;

  record Run(int exit, String out, String err) {}

  @BeforeEach
  void freshSchema() throws SQLException {
    schema = "cli_dl_" + ProcessHandle.current().pid() + "_" + (++schemas);
    exec(TestDatabase.embeddedUrl(), "CREATE SCHEMA " + schema);
    url = TestDatabase.embeddedUrl() + "&currentSchema=" + schema;
    assertThat(run("schema", "apply", "--db", url, "--schema", schema).exit()).isZero();
    exec(
        url,
        "INSERT INTO once_queue_binding (destination, consumer_group) VALUES ('orders', 'warehouse')");
    deadLetter("order-paid:1", "java.lang.IllegalStateException", "f1", "cannot ship 1", false);
    deadLetter("order-paid:2", "java.lang.IllegalStateException", "f1", "cannot ship 2", true);
    deadLetter("order-paid:3", "java.lang.NumberFormatException", "f2", "bad amount", false);
    deadLetter("order-paid:4", "dev.once.AttemptsExhausted", "exhausted", "delivered 3", true);
  }

  @AfterEach
  void dropSchema() throws SQLException {
    exec(TestDatabase.embeddedUrl(), "DROP SCHEMA " + schema + " CASCADE");
  }

  @Test
  void theIdsListPrintsAreWhatShowTakesOneOrSeveralOrARange() {
    List<Long> ids = idsOf(run("dead-letters", "list", "--db", url, "--schema", schema).out());
    assertThat(ids).hasSize(4);

    Run one =
        run("dead-letters", "show", "--db", url, "--schema", schema, Long.toString(ids.get(2)));
    assertThat(one.exit()).as(one.err()).isZero();
    assertThat(one.out()).contains("dead letter " + ids.get(2) + " (dead)", "order-paid:3");
    assertThat(one.out()).doesNotContain("order-paid:1");

    Run range =
        run(
            "dead-letters",
            "show",
            "--db",
            url,
            "--schema",
            schema,
            ids.get(0) + "-" + ids.get(1),
            "" + ids.get(3));
    assertThat(range.exit()).as(range.err()).isZero();
    assertThat(range.out()).contains("order-paid:1", "order-paid:2", "order-paid:4");
    assertThat(range.out()).doesNotContain("order-paid:3");

    Run missing =
        run("dead-letters", "show", "--db", url, "--schema", schema, ids.get(0) + "", "999999");
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.out()).contains("order-paid:1");
    assertThat(missing.err().strip()).endsWith("once: no dead letter 999999");

    Run filteredOut =
        run(
            "dead-letters",
            "show",
            "--db",
            url,
            "--schema",
            schema,
            "" + ids.get(2),
            "--consumer",
            "notifier");
    assertThat(filteredOut.exit()).isEqualTo(1);
    assertThat(filteredOut.err()).contains("no dead letter " + ids.get(2) + " with these filters");
  }

  @Test
  void showPrintsThePayloadsSizeHashAndShapeAndItsValuesOnlyWhenAsked() throws SQLException {
    exec(
        url,
        "INSERT INTO once_dead_letter (consumer_id, event_id, destination, event_key, event_type,"
            + " payload, attempts, first_failed_at, last_failed_at, error_class, error_fingerprint,"
            + " error_message, final_attempt_crashed) VALUES ('warehouse', 'order-paid:9',"
            + " 'orders', 'k', 'OrderPaid', convert_to('{\"sku\":\"SKU-SECRET-9\",\"qty\":3}',"
            + " 'UTF8'), 3, now(), now(), 'E', 'f9', 'no stock', false)");

    Run shown =
        run("dead-letters", "show", "--db", url, "--schema", schema, "--event", "order-paid:9");
    Run revealed =
        run(
            "dead-letters",
            "show",
            "--db",
            url,
            "--schema",
            schema,
            "--event",
            "order-paid:9",
            "--show-payload");

    assertThat(shown.exit()).as(shown.err()).isZero();
    assertThat(shown.out())
        .containsPattern(
            "payload +30 bytes, sha256:[0-9a-f]{12}, \\{\"sku\":string,\"qty\":number}")
        .doesNotContain("SKU-SECRET-9");
    assertThat(revealed.out()).contains("{\"sku\":\"SKU-SECRET-9\",\"qty\":3}");
  }

  @Test
  void aDeadLetterWhoseFinalAttemptCrashedShowsItsLastRealErrorAndSaysItCrashed() {
    Run list = run("dead-letters", "list", "--db", url, "--schema", schema, "--fingerprint", "f1");
    assertThat(list.out())
        .containsPattern("order-paid:1 .* IllegalStateException\\R")
        .containsPattern("order-paid:2 .* IllegalStateException \\(final attempt crashed\\)");

    long crashed = idsOf(list.out()).get(1);
    Run show = run("dead-letters", "show", "--db", url, "--schema", schema, "" + crashed);
    assertThat(show.out())
        .contains("java.lang.IllegalStateException (fingerprint f1)", "cannot ship 2")
        .containsPattern("final attempt +crashed: .*the error above is the last one recorded");

    Run allCrashed =
        run("dead-letters", "show", "--db", url, "--schema", schema, "--event", "order-paid:4");
    assertThat(allCrashed.out()).containsPattern("final attempt +crashed: .*no attempt recorded");
  }

  @Test
  void replayAndDiscardActOnTheIdsGivenAndSayWhichWereNotOpen() {
    List<Long> ids = idsOf(run("dead-letters", "list", "--db", url, "--schema", schema).out());

    Run discard =
        run(
            "dead-letters",
            "discard",
            "--db",
            url,
            "--schema",
            schema,
            "" + ids.get(0),
            "--reason",
            "cancelled");
    assertThat(discard.exit()).as(discard.err()).isZero();
    assertThat(discard.out())
        .isEqualToIgnoringNewLines(
            "discarded dead letter " + ids.get(0) + " (event order-paid:1, consumer warehouse)");

    Run replay =
        run(
            "dead-letters",
            "replay",
            "--db",
            url,
            "--schema",
            schema,
            ids.get(0) + "-" + ids.get(1));
    assertThat(replay.out())
        .isEqualToIgnoringNewLines(
            "replayed dead letter " + ids.get(1) + " (event order-paid:2, consumer warehouse)");
    assertThat(replay.err())
        .contains("once: dead letter " + ids.get(0) + " is discarded, not open: left as it is");
    assertThat(replay.exit()).isEqualTo(1);
    assertThat(count("SELECT count(*) FROM once_queue WHERE event_id = 'order-paid:2'"))
        .as("replayed to the consumer group")
        .isEqualTo(1);
    assertThat(count("SELECT count(*) FROM once_dead_letter WHERE status = 'dead'")).isEqualTo(2);
  }

  @Test
  void withoutSchemaTheCommandsReadTheSchemaTheUrlNames() {
    Run list = run("dead-letters", "list", "--db", url);
    Run status = run("status", "--db", url);

    assertThat(list.exit()).as(list.err()).isZero();
    assertThat(list.out()).contains("4 dead letters");
    assertThat(status.exit()).as(status.err()).isZero();
    assertThat(status.out()).containsPattern("dead +warehouse +4 ");
  }

  @Test
  void replaySaysWhatItReplayedOneLineEachAndNoTable() {
    List<Long> ids = idsOf(run("dead-letters", "list", "--db", url).out());

    Run replay = run("dead-letters", "replay", "--db", url, "" + ids.get(1));

    assertThat(replay.exit()).as(replay.err()).isZero();
    assertThat(replay.out().lines())
        .containsExactly(
            "replayed dead letter " + ids.get(1) + " (event order-paid:2, consumer warehouse)");
    assertThat(replay.err()).isEmpty();
    assertThat(count("SELECT count(*) FROM once_queue WHERE event_id = 'order-paid:2'"))
        .isEqualTo(1);
  }

  @Test
  void replayOfAnUnknownIdFailsInOneLineNamingItAndDoesNothing() {
    Run replay = run("dead-letters", "replay", "--db", url, "999999");

    assertThat(replay.exit()).isEqualTo(1);
    assertThat(replay.out()).isEmpty();
    assertThat(replay.err().strip()).isEqualTo("once: no dead letter 999999: nothing replayed");
    assertThat(count("SELECT count(*) FROM once_dead_letter WHERE status = 'dead'")).isEqualTo(4);
  }

  @Test
  void listJsonIsOneObjectWithThePageAndTheNextIdAndNoPayload() throws Exception {
    Run json = run("dead-letters", "list", "--db", url, "--limit", "3", "--json");

    assertThat(json.exit()).as(json.err()).isZero();
    var tree = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json.out());
    assertThat(tree.get("dead_letters")).hasSize(3);
    var first = tree.get("dead_letters").get(0);
    assertThat(first.get("consumer").asText()).isEqualTo("warehouse");
    assertThat(first.get("event_id").asText()).isEqualTo("order-paid:1");
    assertThat(first.get("status").asText()).isEqualTo("dead");
    assertThat(first.get("fingerprint").asText()).isEqualTo("f1");
    assertThat(first.has("payload")).isFalse();
    assertThat(tree.get("next_after").asLong())
        .isEqualTo(tree.get("dead_letters").get(2).get("id").asLong());
    Run last =
        run("dead-letters", "list", "--db", url, "--json", "--after", tree.get("next_after") + "");
    var lastPage = new com.fasterxml.jackson.databind.ObjectMapper().readTree(last.out());
    assertThat(lastPage.get("dead_letters")).hasSize(1);
    assertThat(lastPage.get("next_after").isNull()).isTrue();
  }

  @Test
  void statusGivesTheAgeOfTheOldestOpenDeadLetterInTextAndJson() throws Exception {
    exec(url, "UPDATE once_dead_letter SET dead_at = now() - interval '90 minutes'");

    Run text = run("status", "--db", url);
    Run json = run("status", "--db", url, "--json");

    assertThat(text.out()).containsPattern("dead +warehouse +4 +90 min");
    var dead = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json.out());
    assertThat(dead.get("dead_letters").get(0).get("oldest_age_seconds").asDouble())
        .isBetween(5400.0, 5400.0 + 600);
  }

  @Test
  void replayWithNeitherIdsNorFiltersNamesWhatToGiveAndDoesNothing() {
    Run r = run("dead-letters", "replay", "--db", url, "--schema", schema);
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err().strip()).startsWith("once: no dead letter named: give ids");
    assertThat(count("SELECT count(*) FROM once_dead_letter WHERE status = 'dead'")).isEqualTo(4);
  }

  private static final Pattern ID = Pattern.compile("(?m)^(\\d+) +warehouse ");

  private static List<Long> idsOf(String listing) {
    Matcher m = ID.matcher(listing);
    List<Long> ids = new java.util.ArrayList<>();
    while (m.find()) {
      ids.add(Long.parseLong(m.group(1)));
    }
    return ids;
  }

  private void deadLetter(
      String eventId, String errorClass, String fingerprint, String message, boolean crashed)
      throws SQLException {
    exec(
        url,
        "INSERT INTO once_dead_letter (consumer_id, event_id, destination, event_key, event_type,"
            + " payload, attempts, first_failed_at, last_failed_at, error_class, error_fingerprint,"
            + " error_message, final_attempt_crashed) VALUES ('warehouse', '"
            + eventId
            + "', 'orders', 'k', 'OrderPaid', '\\x7b7d', 3, now(), now(), '"
            + errorClass
            + "', '"
            + fingerprint
            + "', '"
            + message
            + "', "
            + crashed
            + ")");
  }

  private long count(String sql) {
    try (Connection c = DriverManager.getConnection(url);
        var rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  private static void exec(String jdbcUrl, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(jdbcUrl);
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  static synchronized Run run(String... args) {
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
      PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
      System.setOut(o);
      System.setErr(e);
      int exit = Main.run(new PrintWriter(o, true), new PrintWriter(e, true), args);
      return new Run(
          exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
  }
}
