package dev.once.app.ops;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Once;
import dev.once.ParkedKey;
import dev.once.WorkloadStatus;
import dev.once.app.ops.DeadLettersCommandTest.Run;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Parked keys as an operator sees and releases them: {@code once dead-letters keys} (pages, ages,
 * the events behind), {@code list}'s mark on a dead letter that heads one, {@code replay --key} and
 * {@code discard --key}. The keys are parked by hand, as the ordered consumer's ack leaves them
 * (once-core's {@code ParkedKeyAdminTest} parks them through a consumer). 10 000 parked keys on
 * PostgreSQL; the statements on MariaDB too, whose schema has the table.
 */
class ParkedKeysCommandTest {
  private static final Pattern KEY_ROW =
      Pattern.compile("(?m)^(\\d+) +warehouse +orders +(k-\\d+) +head:\\d+ .* (\\d+)$");
  private static final Pattern MORE =
      Pattern.compile(
          "(?m)^more: once dead-letters keys --after (\\d+) \\(with the same filters\\)$");

  /**
   * 10 000 keys parked a day ago, three events behind each: every page is bounded, every key is on
   * exactly one page, {@code status} counts them all; both stay fast (the times are printed).
   */
  @Test
  void tenThousandParkedKeysArePagedAndCountedFastOnPostgresql() {
    try (TestDatabase db = TestDatabase.local()) {
      park(db, 10_000);
      String url = url(db);

      long t0 = System.nanoTime();
      Run first = run("keys", url, db);
      long firstMs = (System.nanoTime() - t0) / 1_000_000;
      assertThat(first.exit()).as(first.err()).isZero();
      assertThat(rows(first.out())).hasSize(100);
      assertThat(first.out()).contains("100 parked keys", "more: once dead-letters keys --after");
      assertThat(first.out()).containsPattern("(?m)^1 +warehouse +orders +k-1 +head:1 .* 24 h +3$");

      List<String> seen = new ArrayList<>();
      String after = "0";
      long t1 = System.nanoTime();
      for (int page = 0; after != null; page++) {
        assertThat(page).as("pages").isLessThan(5);
        Run r = run("keys", url, db, "--limit", "4000", "--after", after);
        assertThat(r.exit()).as(r.err()).isZero();
        seen.addAll(rows(r.out()));
        Matcher more = MORE.matcher(r.out());
        after = more.find() ? more.group(1) : null;
      }
      long allMs = (System.nanoTime() - t1) / 1_000_000;
      assertThat(seen).hasSize(10_000).doesNotHaveDuplicates();

      long t2 = System.nanoTime();
      Run status = DeadLettersCommandTest.run("status", "--db", url, "--schema", db.schema());
      long statusMs = (System.nanoTime() - t2) / 1_000_000;
      assertThat(status.exit()).as(status.err()).isZero();
      assertThat(status.out()).containsPattern("keys +warehouse +30000 +10000 +24 h");

      long t3 = System.nanoTime();
      Run list = run("list", url, db, "--limit", "3");
      long listMs = (System.nanoTime() - t3) / 1_000_000;
      assertThat(list.out())
          .contains("[parked key, 3 behind]", "3 of them head a key an ordered consumer parked");
      System.out.printf(
          "10 000 parked keys, commands: keys first page %d ms, all pages (3 x 4000) %d ms,"
              + " status %d ms, list --limit 3 %d ms (the command's own start)%n",
          firstMs, allMs, statusMs, listMs);
      try (TableQueueTransport queue = TableQueueTransport.create(db.dataSource());
          Once once = Once.builder().dataSource(db.dataSource()).transport(queue).build()) {
        for (int round = 0; round < 3; round++) { // the first warms the JIT and the cache
          long a = System.nanoTime();
          List<ParkedKey> page = once.deadLetters().parkedKeys(null, null, 0, 100);
          long b = System.nanoTime();
          WorkloadStatus s = once.status();
          long c = System.nanoTime();
          assertThat(page).hasSize(100);
          assertThat(s.parkedKeys().get(0).parked()).isEqualTo(10_000);
          System.out.printf(
              "10 000 parked keys, API: parkedKeys page of 100 %.1f ms, status %.1f ms%n",
              (b - a) / 1e6, (c - b) / 1e6);
        }
      }
    }
  }

  @Test
  void replayAndDiscardOfAWholeKeyOnPostgresql() {
    try (TestDatabase db = TestDatabase.local()) {
      replayAndDiscardOfAWholeKey(db);
    }
  }

  @Test
  void replayAndDiscardOfAWholeKeyOnMariaDb() {
    try (TestDatabase db = TestDatabase.mariadb()) {
      replayAndDiscardOfAWholeKey(db);
    }
  }

  private static void replayAndDiscardOfAWholeKey(TestDatabase db) {
    park(db, 3);
    String url = url(db);

    Run json = run("keys", url, db, "--key", "k-2", "--json");
    assertThat(json.out())
        .contains("\"key\":\"k-2\"", "\"head_event_id\":\"head:2\"", "\"events_behind\":3")
        .contains("\"next_after\":null");

    Run refused = run("replay", url, db, "--key", "k-1", "7");
    assertThat(refused.exit()).isEqualTo(2);
    assertThat(refused.err()).contains("--key names a whole parked key");

    Run replayed = run("replay", url, db, "--key", "k-1", "--reason", "fixed");
    assertThat(replayed.exit()).as(replayed.err()).isZero();
    assertThat(replayed.out())
        .contains(
            "replayed parked key k-1 (consumer warehouse, destination orders): head event head:1"
                + " runs first, then the 3 events behind it");
    assertThat(db.count("SELECT min(id) FROM once_queue WHERE event_key = 'k-1'"))
        .as("the head back in its old place, before the events behind it")
        .isEqualTo(1);
    assertThat(db.count("SELECT count(*) FROM once_queue WHERE event_id = 'head:1'")).isEqualTo(1);

    Run discarded =
        run("discard", url, db, "--key", "k-2", "--consumer", "warehouse", "--reason", "cancelled");
    assertThat(discarded.exit()).as(discarded.err()).isZero();
    assertThat(discarded.out())
        .contains("discarded parked key k-2", "head event head:2 and the 3 events behind it");
    assertThat(db.count("SELECT count(*) FROM once_queue WHERE event_key = 'k-2'")).isZero();
    assertThat(
            db.count(
                "SELECT count(*) FROM once_dead_letter_action WHERE action = 'discard'"
                    + " AND actor IS NOT NULL AND reason LIKE '%cancelled'"))
        .as("the head and the three behind it")
        .isEqualTo(4);

    Run again = run("replay", url, db, "--key", "k-2");
    assertThat(again.exit()).isEqualTo(1);
    assertThat(again.err()).contains("no key 'k-2' is parked", "nothing replayed");

    Run left = run("keys", url, db);
    assertThat(rows(left.out())).containsExactly("k-3");
  }

  /**
   * {@code n} keys k-1..k-n of consumer warehouse parked a day ago behind dead letters head:i, each
   * with three events behind it in the queue; head i's old place is queue id i, the rows behind are
   * above.
   */
  private static void park(TestDatabase db, int n) {
    boolean maria = db.isMariaDb();
    String dayAgo = maria ? "UTC_TIMESTAMP(6) - INTERVAL 1 DAY" : "now() - interval '1 day'";
    String now = maria ? "UTC_TIMESTAMP(6)" : "now()";
    String payload = maria ? "'{}', ''" : "'\\x7b7d'";
    String headers = maria ? ", headers" : "";
    String series =
        maria
            ? "(WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < "
                + n
                + ") SELECT i FROM s) g"
            : "generate_series(1, " + n + ") g(i)";
    String cat = maria ? "concat('%s', g.i)" : "'%s' || g.i";
    db.execute(
        "INSERT INTO once_queue_binding (destination, consumer_group, in_key_order)"
            + " VALUES ('orders', 'warehouse', true)");
    db.execute(
        maria
            ? "ALTER TABLE once_queue AUTO_INCREMENT = 1000000"
            : "ALTER SEQUENCE once_queue_id_seq RESTART WITH 1000000");
    db.execute(
        "INSERT INTO once_dead_letter (consumer_id, event_id, destination, event_key, event_type,"
            + " payload"
            + headers
            + ", attempts, first_failed_at, last_failed_at, error_class, error_fingerprint,"
            + " error_message, dead_at) SELECT 'warehouse', "
            + cat.formatted("head:")
            + ", 'orders', "
            + cat.formatted("k-")
            + ", 'Step', "
            + payload
            + ", 1, "
            + dayAgo
            + ", "
            + dayAgo
            + ", 'java.lang.IllegalStateException', 'f1', 'boom', "
            + dayAgo
            + " FROM "
            + series);
    db.execute(
        "INSERT INTO once_parked_key (consumer_group, destination, event_key, event_id, head_id,"
            + " parked_at) SELECT 'warehouse', 'orders', "
            + cat.formatted("k-")
            + ", "
            + cat.formatted("head:")
            + ", g.i, "
            + dayAgo
            + " FROM "
            + series);
    for (int step = 1; step <= 3; step++) {
      db.execute(
          "INSERT INTO once_queue (consumer_group, event_id, destination, event_key, event_type,"
              + " payload"
              + headers
              + ", enqueued_at, visible_at, in_key_order) SELECT 'warehouse', "
              + cat.formatted("step" + step + ":")
              + ", 'orders', "
              + cat.formatted("k-")
              + ", 'Step', "
              + payload
              + ", "
              + now
              + ", "
              + now
              + ", true FROM "
              + series);
    }
  }

  private static Run run(String sub, String url, TestDatabase db, String... more) {
    List<String> args = new ArrayList<>(List.of("dead-letters", sub, "--db", url));
    args.addAll(List.of("--schema", db.schema()));
    args.addAll(List.of(more));
    return DeadLettersCommandTest.run(args.toArray(String[]::new));
  }

  private static String url(TestDatabase db) {
    return db.isMariaDb()
        ? "jdbc:mariadb://127.0.0.1:3306/" + db.schema() + "?user=root"
        : TestDatabase.LOCAL_URL + "&currentSchema=" + db.schema();
  }

  private static List<String> rows(String listing) {
    List<String> keys = new ArrayList<>();
    Matcher m = KEY_ROW.matcher(listing);
    while (m.find()) {
      keys.add(m.group(2));
    }
    return keys;
  }
}
