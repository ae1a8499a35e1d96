package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.internal.Jdbc;
import dev.once.internal.postgres.PostgresQueue;
import dev.once.jdbc.Dialects;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A queue table is often empty when vacuum or analyze looks at it and full a moment later. With the
 * statistics of an empty table the planner answers a claim with a sequential scan and a sort of the
 * whole backlog, every time; the claim must keep walking the ready index from its head instead.
 */
class QueuePlanTest {
  @Test
  void aClaimUsesTheReadyIndexWhenTheStatisticsSayTheQueueIsEmpty() throws SQLException {
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("VACUUM once_queue"); // empty: its statistics now say "no rows"
      db.execute(
          """
          INSERT INTO once_queue
                 (consumer_group, event_id, destination, event_type, payload, enqueued_at,
                  visible_at)
          SELECT 'g', 'e:' || n, 'd', 'T', 'p', now(), now() FROM generate_series(1, 20000) n
          """);
      try (Connection c = db.dataSource().getConnection()) {
        c.setAutoCommit(false);
        Dialects.postgresql().flavour().beginEngineTransaction(c);
        String plan = explain(c, PostgresQueue.CLAIM);
        c.rollback();

        assertThat(plan).contains("Index Scan using once_queue_ready").doesNotContain("Seq Scan");
      }
    }
  }

  /**
   * An ordered group's claim: the same walk of the ready index, and each row's head-of-key check
   * one probe of {@code once_queue_key} (a scan of the group's earlier rows instead would make a
   * claim cost the backlog behind a parked key).
   */
  @Test
  void anOrderedClaimWalksTheReadyIndexAndProbesTheKeyIndex() throws SQLException {
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("VACUUM once_queue");
      db.execute(
          """
          INSERT INTO once_queue
                 (consumer_group, event_id, destination, event_key, event_type, payload,
                  enqueued_at, visible_at, in_key_order)
          SELECT 'g', 'e:' || n, 'd', 'k' || (n % 500), 'T', 'p', now(), now(), true
            FROM generate_series(1, 20000) n
          """);
      try (Connection c = db.dataSource().getConnection()) {
        c.setAutoCommit(false);
        Dialects.postgresql().flavour().beginEngineTransaction(c);
        String plan = explain(c, PostgresQueue.CLAIM_IN_KEY_ORDER);
        c.rollback();

        assertThat(plan)
            .contains("Index Scan using once_queue_ready")
            .contains("once_queue_key")
            .doesNotContain("Seq Scan");
      }
    }
  }

  private static String explain(Connection c, String claim) throws SQLException {
    StringBuilder plan = new StringBuilder();
    try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + claim)) {
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
}
