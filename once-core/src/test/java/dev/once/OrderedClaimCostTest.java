package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.internal.Jdbc;
import dev.once.internal.postgres.PostgresQueue;
import dev.once.jdbc.QueueClaim;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * An ordered claim costs about what it takes, whatever the statistics say. A queue drained,
 * vacuumed and filled again makes PostgreSQL 15 plan the claim as a bitmap scan of the group's rows
 * and a sort, and the head-of-key check inside that scan then runs on every visible row before the
 * sort and the limit: 5 000 probes of {@code once_queue_key} and about 10 000 buffer hits for a
 * claim of 32. The claim runs in the engine's transaction, which turns bitmap and sequential scans
 * off, so it walks the ready index and stops at its limit. Counted in the plan's own figures
 * (EXPLAIN ANALYZE, BUFFERS) on the embedded server and on the local PostgreSQL 15 server.
 */
class OrderedClaimCostTest {
  private static final int ROWS = 5000;
  private static final int BATCH = 32;

  @Test
  void aClaimOnTheEmbeddedServerProbesOnlyTheRowsItTakes() throws SQLException {
    try (TestDatabase db = TestDatabase.embedded()) {
      assertAClaimOf32ReadsAFewHundredBuffers(db);
    }
  }

  @Test
  void aClaimOnTheLocalServerProbesOnlyTheRowsItTakes() throws SQLException {
    try (TestDatabase db = TestDatabase.local()) {
      assertAClaimOf32ReadsAFewHundredBuffers(db);
    }
  }

  private static void assertAClaimOf32ReadsAFewHundredBuffers(TestDatabase db) throws SQLException {
    // Given a queue drained and vacuumed (its statistics now say "no rows", its indexes keep their
    // pages), then filled with 5 000 ordered rows of distinct keys, as the bench leaves it
    fill(db);
    db.execute("DELETE FROM once_queue");
    Vacuum.untilClean(db, "", "once_queue");
    Vacuum.untilClean(db, "", "once_parked_key"); // empty too, as the bench leaves it
    fill(db);
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      db.dialect().flavour().beginEngineTransaction(c);
      // When one claim of 32 runs, as the receiver runs it
      String plan = explainAnalyze(c);
      c.rollback();

      // Then it probes once_queue_key for the rows it takes only, and reads a few hundred buffers
      // (without the engine transaction's settings: 10 542 on the local server)
      assertThat(figure(plan, "on once_queue e \\(actual rows=[\\d.]+ loops=(\\d+)\\)"))
          .as("head-of-key probes of a claim of %d over %d rows:%n%s", BATCH, ROWS, plan)
          .isLessThanOrEqualTo(BATCH);
      assertThat(figure(plan, "Buffers: shared hit=(\\d+)"))
          .as("buffers a claim of %d over %d rows reads:%n%s", BATCH, ROWS, plan)
          .isLessThanOrEqualTo(1000);
    }
    assertThat(claim(db)).as("rows handed out").isEqualTo(BATCH);
  }

  private static void fill(TestDatabase db) {
    db.execute(
        """
        INSERT INTO once_queue
               (consumer_group, event_id, destination, event_key, event_type, payload,
                enqueued_at, visible_at, in_key_order)
        SELECT 'g', 'e:' || n, 'd', 'k' || n, 'T', 'p', now(), now() - interval '1 minute', true
          FROM generate_series(1, %d) n
        """
            .formatted(ROWS));
  }

  private static int claim(TestDatabase db) throws SQLException {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      db.dialect().flavour().beginEngineTransaction(c);
      Instant now = Instant.now();
      int claimed =
          db.dialect()
              .queue()
              .claimInKeyOrder(c, new QueueClaim("g", now, BATCH, now.plusSeconds(60)))
              .size();
      c.commit();
      return claimed;
    }
  }

  private static String explainAnalyze(Connection c) throws SQLException {
    StringBuilder plan = new StringBuilder();
    try (PreparedStatement ps =
        c.prepareStatement(
            "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) "
                + PostgresQueue.CLAIM_IN_KEY_ORDER)) {
      Timestamp now = Timestamp.from(Instant.now());
      Jdbc.bind(ps, "g", now, BATCH, now);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
    }
    return plan.toString();
  }

  /** The first figure the pattern's group matches in the plan: the top node's, for buffers. */
  private static long figure(String plan, String pattern) {
    Matcher m = Pattern.compile(pattern).matcher(plan);
    assertThat(m.find()).as("%s in%n%s", pattern, plan).isTrue();
    return Long.parseLong(m.group(1));
  }
}
