package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.internal.Jdbc;
import dev.once.internal.postgres.PostgresQueue;
import dev.once.jdbc.FailedAttempt;
import dev.once.jdbc.QueueClaim;
import dev.once.jdbc.QueueDialect;
import dev.once.spi.Delivery;
import dev.once.test.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a parked key costs an ordered group's other keys. The events waiting behind a parked key are
 * the oldest rows of the queue, so a claim that read the group's rows in order met them first: the
 * ack that parks a key moves them out of the claim's range, so that a claim reads about as much as
 * with no parked key (PostgreSQL: buffers and rows of the ready index; MariaDB: index rows read),
 * and hands out the other keys' rows behind them.
 */
class ParkedKeyClaimTest {
  private static final int BEHIND = 1000;
  private static final int OTHERS = 10;

  /** Rows of other keys, already drained, between two rows of the parked key. */
  private static final int FILLERS = 4;

  @Test
  void aClaimOnTheEmbeddedServerReadsAboutAsMuchWithAThousandRowsBehindAParkedKeyAsWithNone()
      throws SQLException {
    try (TestDatabase db = TestDatabase.embedded()) {
      assertAClaimReadsAboutAsMuchAsWithNoParkedKey(db);
    }
  }

  @Test
  void aClaimOnTheLocalServerReadsAboutAsMuchWithAThousandRowsBehindAParkedKeyAsWithNone()
      throws SQLException {
    try (TestDatabase db = TestDatabase.local()) {
      assertAClaimReadsAboutAsMuchAsWithNoParkedKey(db);
    }
  }

  private static void assertAClaimReadsAboutAsMuchAsWithNoParkedKey(TestDatabase db)
      throws SQLException {
    parkOneKeyBehindOthers(db, "g", BEHIND);
    parkOneKeyBehindOthers(db, "clean", 0);
    Vacuum.untilClean(db, "ANALYZE", "once_queue");
    String plan = explainClaim(db, "g");
    String clean = explainClaim(db, "clean");
    System.out.println("ordered claim, " + BEHIND + " rows behind a parked key:\n" + plan);
    System.out.println("ordered claim, no parked key:\n" + clean);

    assertThat(readyRowsRead(plan))
        .as("rows the pick read with %d behind a parked key:%n%s", BEHIND, plan)
        .isLessThanOrEqualTo(OTHERS);
    assertThat(buffers(plan))
        .as(
            "buffers with %d rows behind a parked key, %d with none:%n%s",
            BEHIND, buffers(clean), plan)
        .isLessThanOrEqualTo(buffers(clean) + 10);
    assertThat(headProbes(plan)).isLessThanOrEqualTo(OTHERS);
    assertThat(claim(db, "g")).hasSize(OTHERS);
  }

  @Test
  void aClaimOnMariaDbReadsAboutAsManyIndexRowsWithAThousandRowsBehindAParkedKeyAsWithNone()
      throws SQLException {
    try (TestDatabase db = TestDatabase.mariadb()) {
      parkOneKeyBehindOthers(db, "g", BEHIND);
      parkOneKeyBehindOthers(db, "clean", 0);

      db.execute("ANALYZE TABLE once_queue");
      long clean = indexRowsRead(db, "clean").read();
      IndexRead parked = indexRowsRead(db, "g");
      System.out.printf(
          "index rows a claim read: %d with %d rows behind a parked key, %d with none%n",
          parked.read(), BEHIND, clean);

      assertThat(parked.claimed()).hasSize(OTHERS);
      assertThat(parked.claimed())
          .allSatisfy(d -> assertThat(d.event().key()).startsWith("other-"));
      assertThat(parked.read())
          .as("index rows read with %d behind a parked key (%d with none)", BEHIND, clean)
          .isLessThanOrEqualTo(clean + 10);
      assertThat(db.count("SELECT count(*) FROM once_queue WHERE delivery_count = 0"))
          .as("the parked key's events are left as they were")
          .isEqualTo(BEHIND);
    }
  }

  /** One claim of 32 in the engine's transaction, committed. */
  private static List<Delivery> claim(TestDatabase db, String group) throws SQLException {
    try (Connection c = db.dataSource().getConnection()) {
      return claim(db, c, group);
    }
  }

  private static List<Delivery> claim(TestDatabase db, Connection c, String group)
      throws SQLException {
    c.setAutoCommit(false);
    db.dialect().flavour().beginEngineTransaction(c);
    Instant now = Instant.now();
    List<Delivery> claimed =
        db.dialect()
            .queue()
            .claimInKeyOrder(c, new QueueClaim(group, now, 32, now.plusSeconds(60)));
    c.commit();
    c.setAutoCommit(true);
    return claimed;
  }

  private record IndexRead(List<Delivery> claimed, long read) {}

  /** A claim, and the index rows it read on MariaDB (the session's {@code Handler_read_*}). */
  private static IndexRead indexRowsRead(TestDatabase db, String group) throws SQLException {
    try (Connection c = db.dataSource().getConnection()) {
      long before = handlerReads(c);
      List<Delivery> claimed = claim(db, c, group);
      return new IndexRead(claimed, handlerReads(c) - before);
    }
  }

  private static long handlerReads(Connection c) throws SQLException {
    long n = 0;
    try (PreparedStatement ps =
            c.prepareStatement(
                "SHOW SESSION STATUS WHERE Variable_name IN"
                    + " ('Handler_read_key', 'Handler_read_next', 'Handler_read_rnd_next')");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        n += rs.getLong(2);
      }
    }
    return n;
  }

  /**
   * Group {@code group} of destination {@code group}, ordered: key {@code parked}'s head, {@code
   * behind} more of its events (spread: {@link #FILLERS} drained rows between two), then {@link
   * #OTHERS} events of other keys; the head claimed, dead-lettered and acknowledged, which parks
   * its key, as the consumer does.
   */
  private static void parkOneKeyBehindOthers(TestDatabase db, String group, int behind)
      throws SQLException {
    QueueDialect queue = db.dialect().queue();
    byte[] payload = "{}".getBytes(StandardCharsets.UTF_8);
    List<Event> events = new ArrayList<>();
    for (int i = 0; i <= behind + OTHERS; i++) {
      boolean parked = i <= behind;
      String id = group + (parked ? ":parked:" : ":other:") + i;
      events.add(
          new Event(
              new EventId(id), group, parked ? "parked" : "other-" + i, "T", payload, Map.of()));
      for (int f = 0; parked && i > 0 && f < FILLERS; f++) {
        String filler = "drained-" + i + "-" + f;
        events.add(
            new Event(new EventId(group + ":" + filler), group, filler, "T", payload, Map.of()));
      }
    }
    Instant past = Instant.now().minusSeconds(60);
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      queue.bind(c, group, group);
      queue.markInKeyOrder(c, group, group);
      queue.enqueue(c, events, past);
      c.commit();
      // the other keys' rows that were among the parked key's have run: its rows spread out
      db.execute("DELETE FROM once_queue WHERE event_key LIKE 'drained-%'");
      db.dialect().flavour().beginEngineTransaction(c);
      List<Delivery> head =
          queue.claimInKeyOrder(c, new QueueClaim(group, past, 1, past.plusSeconds(30)));
      assertThat(head).extracting(d -> d.event().id()).containsExactly(events.get(0).id());
      Event e = events.get(0);
      db.dialect()
          .deadLetters()
          .insertDeadLetter(
              c,
              e,
              new FailedAttempt(group, e.id().value(), 1, past, past, "E", "fp", "m", false),
              past);
      queue.ackInKeyOrder(c, List.of((Long) head.get(0).handle()), past);
      c.commit();
    }
  }

  /** The ordered claim's plan, run, in the engine's transaction (rolled back). */
  private static String explainClaim(TestDatabase db, String group) throws SQLException {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      db.dialect().flavour().beginEngineTransaction(c);
      StringBuilder plan = new StringBuilder();
      try (PreparedStatement ps =
          c.prepareStatement(
              "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) "
                  + PostgresQueue.CLAIM_IN_KEY_ORDER)) {
        Timestamp now = Timestamp.from(Instant.now());
        Jdbc.bind(ps, group, now, 32, now);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            plan.append(rs.getString(1)).append('\n');
          }
        }
      }
      c.rollback();
      return plan.toString();
    }
  }

  /** The buffers of the claim's pick of rows (its {@code CTE c}; the update's join aside). */
  private static long buffers(String plan) {
    Matcher m = Pattern.compile("CTE c\\n[^\\n]*\\n\\s+Buffers: shared hit=(\\d+)").matcher(plan);
    assertThat(m.find()).as("the pick's buffers in%n%s", plan).isTrue();
    return Long.parseLong(m.group(1));
  }

  /** The rows the claim's pick read from its index: those it kept and those it turned away. */
  private static long readyRowsRead(String plan) {
    Matcher m =
        Pattern.compile("Index Scan using \\w+ on once_queue q\\w* \\(actual rows=(\\d+)")
            .matcher(plan.substring(plan.indexOf("CTE c")));
    assertThat(m.find()).as("the pick's scan of an index in%n%s", plan).isTrue();
    String node = plan.substring(plan.indexOf("CTE c") + m.end()).split("SubPlan|->", 2)[0];
    Matcher removed = Pattern.compile("Rows Removed by Filter: (\\d+)").matcher(node);
    return Long.parseLong(m.group(1)) + (removed.find() ? Long.parseLong(removed.group(1)) : 0);
  }

  /** How many times the claim looked for an earlier row of a key: its plan node's loops. */
  private static long headProbes(String plan) {
    Matcher m =
        Pattern.compile("on once_queue e \\(actual rows=[\\d.]+ loops=(\\d+)\\)").matcher(plan);
    assertThat(m.find()).as("a probe of once_queue_key in%n%s", plan).isTrue();
    return Long.parseLong(m.group(1));
  }
}
