package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.internal.Jdbc;
import dev.once.internal.postgres.PostgresQueue;
import dev.once.jdbc.QueueClaim;
import dev.once.spi.Delivery;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a parked key costs an ordered group's other keys. The events waiting behind a parked key are
 * the oldest rows of the queue, so every claim meets them first: it must turn them away cheaply
 * (PostgreSQL: without probing the key index for each) and must still hand out the other keys' rows
 * behind them (MariaDB: a claim that locked only the parked key's rows handed out nothing).
 */
class ParkedKeyClaimTest {
  private static final int BEHIND = 1000;
  private static final int OTHERS = 10;

  @Test
  void aClaimOnPostgresqlProbesTheKeyIndexOnlyForRowsOfKeysNotParked() throws SQLException {
    try (TestDatabase db = TestDatabase.embedded()) {
      parkOneKeyBehindOthers(db);
      db.execute("ANALYZE once_queue");
      try (Connection c = db.dataSource().getConnection()) {
        c.setAutoCommit(false);
        db.dialect().flavour().beginEngineTransaction(c);
        String plan = explainAnalyze(c);
        System.out.println("ordered claim, " + BEHIND + " rows behind a parked key:\n" + plan);
        c.rollback();

        assertThat(headProbes(plan))
            .as("head-of-key probes with %d rows behind a parked key:%n%s", BEHIND, plan)
            .isLessThanOrEqualTo(OTHERS + 1);
      }
      assertThat(claim(db)).hasSize(OTHERS);
    }
  }

  @Test
  void aClaimOnMariaDbHandsOutTheOtherKeysBehindABatchOfAParkedKeysEvents() throws SQLException {
    try (TestDatabase db = TestDatabase.mariadb()) {
      parkOneKeyBehindOthers(db);

      List<Delivery> claimed = claim(db);

      assertThat(claimed).hasSize(OTHERS);
      assertThat(claimed).allSatisfy(d -> assertThat(d.event().key()).startsWith("other-"));
      assertThat(db.count("SELECT count(*) FROM once_queue WHERE delivery_count = 0"))
          .as("the parked key's events are left as they were")
          .isEqualTo(BEHIND);
    }
  }

  /** One claim of 32 in the engine's transaction, committed. */
  private static List<Delivery> claim(TestDatabase db) throws SQLException {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      db.dialect().flavour().beginEngineTransaction(c);
      Instant now = Instant.now();
      List<Delivery> claimed =
          db.dialect()
              .queue()
              .claimInKeyOrder(c, new QueueClaim("g", now, 32, now.plusSeconds(60)));
      c.commit();
      return claimed;
    }
  }

  /**
   * Key {@code parked} parked with {@link #BEHIND} events behind it (the oldest rows), then {@link
   * #OTHERS} events of other keys.
   */
  private static void parkOneKeyBehindOthers(TestDatabase db) throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                """
                INSERT INTO once_queue
                       (consumer_group, event_id, destination, event_key, event_type, payload,
                        headers, enqueued_at, visible_at, in_key_order)
                VALUES ('g', ?, 'd', ?, 'T', '{}', %s, ?, ?, true)
                """
                    .formatted(db.isMariaDb() ? "''" : "'{}'"))) {
      Timestamp past = Timestamp.from(Instant.now().minusSeconds(60));
      for (int i = 1; i <= BEHIND + OTHERS; i++) {
        boolean parked = i <= BEHIND;
        ps.setString(1, (parked ? "parked:" : "other:") + i);
        ps.setString(2, parked ? "parked" : "other-" + i);
        ps.setTimestamp(3, past);
        ps.setTimestamp(4, past);
        ps.addBatch();
      }
      ps.executeBatch();
    }
    db.execute(
        """
        INSERT INTO once_parked_key
               (consumer_group, destination, event_key, event_id, head_id, parked_at)
        VALUES ('g', 'd', 'parked', 'parked:0', 0, CURRENT_TIMESTAMP)
        """);
  }

  private static String explainAnalyze(Connection c) throws SQLException {
    StringBuilder plan = new StringBuilder();
    try (PreparedStatement ps =
        c.prepareStatement(
            "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) "
                + PostgresQueue.CLAIM_IN_KEY_ORDER)) {
      Timestamp now = Timestamp.from(Instant.now());
      Jdbc.bind(ps, "g", now, 32, now);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
    }
    return plan.toString();
  }

  /** How many times the claim looked for an earlier row of a key: its plan node's loops. */
  private static long headProbes(String plan) {
    Matcher m =
        Pattern.compile("on once_queue e \\(actual rows=[\\d.]+ loops=(\\d+)\\)").matcher(plan);
    assertThat(m.find()).as("a probe of once_queue_key in%n%s", plan).isTrue();
    return Long.parseLong(m.group(1));
  }
}
