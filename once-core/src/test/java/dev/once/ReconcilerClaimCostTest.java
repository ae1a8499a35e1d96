package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.jdbc.Lease;
import dev.once.jdbc.OperationInsert;
import dev.once.jdbc.OperationRow;
import dev.once.jdbc.OperationsDialect;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * What a reconciler's claim reads, counted by the database: with 2 000 operations of a provider
 * (600 of them finished, 1 400 due), a claim of one reads index entries and rows in the tens, not
 * the provider's operations. Before, the claim's {@code OR} of the due states made PostgreSQL read
 * every open operation of the provider and sort them (5 404 index entries and rows per claim here),
 * and MariaDB every row of the provider, finished ones included (2 003): a backlog of operations
 * drained in O(n²).
 */
class ReconcilerClaimCostTest {
  private static final int ROWS = 2000;
  private static final int FINISHED = 600;
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void aClaimOnPostgresReadsAHandfulOfRowsNotTheBacklog() throws Exception {
    // 82 here: index entries of the rows finished since the last vacuum; 5 404 before
    claimReadsAHandful(TestDatabase::embedded, ReconcilerClaimCostTest::postgresRowsRead, 100);
  }

  @Test
  void aClaimOnMariaDbReadsAHandfulOfRowsNotTheBacklog() throws Exception {
    // 4 here; 2 003 before
    claimReadsAHandful(TestDatabase::mariadb, ReconcilerClaimCostTest::mariaDbRowsRead, 10);
  }

  @Test
  void theOldestDueOperationIsTakenFirstWhateverItsStateOnPostgres() throws Exception {
    oldestDueFirst(TestDatabase::embedded);
  }

  @Test
  void theOldestDueOperationIsTakenFirstWhateverItsStateOnMariaDb() throws Exception {
    oldestDueFirst(TestDatabase::mariadb);
  }

  @FunctionalInterface
  private interface RowsRead {
    long read(Connection c) throws SQLException;
  }

  private void claimReadsAHandful(Supplier<TestDatabase> database, RowsRead rowsRead, int most)
      throws Exception {
    try (TestDatabase db = database.get()) {
      OperationsDialect ops = db.dialect().operations();
      insert(db, ops, ROWS);
      db.execute(
          "UPDATE once_operation SET state = 'SUCCEEDED' WHERE operation_id < 'op-"
              + String.format("%05d", FINISHED)
              + "'");
      try (Connection c = db.dataSource().getConnection()) {
        c.setAutoCommit(false);
        ops.claimDue(c, "mail", 1, lease()); // as a running reconciler: index entries of rows
        c.rollback(); // finished since are known dead after one scan (PostgreSQL: 604 rows read)
        long reading = -rowsRead.read(c) + rowsRead.read(c); // what reading the count reads
        long before = rowsRead.read(c);
        List<OperationRow> taken = ops.claimDue(c, "mail", 1, lease());
        long read = rowsRead.read(c) - before - reading;
        c.rollback();

        assertThat(taken).extracting(OperationRow::id).containsExactly(id(FINISHED));
        assertThat(read).as("rows read by one claim among %d operations", ROWS).isLessThan(most);
      }
    }
  }

  private void oldestDueFirst(Supplier<TestDatabase> database) throws Exception {
    try (TestDatabase db = database.get()) {
      OperationsDialect ops = db.dialect().operations();
      insert(db, ops, 5);
      Instant later = T0.plus(Duration.ofDays(2)); // the margins outlast any session time zone
      Instant past = T0.minus(Duration.ofDays(1));
      db.execute("UPDATE once_operation SET state = 'UNKNOWN' WHERE operation_id = 'op-00000'");
      db.execute( // not due: its retry delay runs past the claim
          "UPDATE once_operation SET state = 'UNKNOWN', next_attempt_at = '"
              + stamp(later)
              + "' WHERE operation_id = 'op-00001'");
      db.execute( // its holder's lease ran out
          "UPDATE once_operation SET state = 'IN_FLIGHT', owner = 'x', lease_until = '"
              + stamp(past)
              + "' WHERE operation_id = 'op-00002'");
      db.execute( // held, lease live
          "UPDATE once_operation SET state = 'IN_FLIGHT', owner = 'y', lease_until = '"
              + stamp(later)
              + "' WHERE operation_id = 'op-00003'");
      try (Connection c = db.dataSource().getConnection()) {
        c.setAutoCommit(true);
        assertThat(ops.claimDue(c, "mail", 3, lease()))
            .extracting(OperationRow::id)
            .containsExactly(id(0), id(2), id(4));
        assertThat(ops.claimDue(c, "mail", 3, lease())).isEmpty();
      }
    }
  }

  private static void insert(TestDatabase db, OperationsDialect ops, int n) throws SQLException {
    try (Connection c = db.dataSource().getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < n; i++) {
        ops.insert(c, new OperationInsert(id(i), "mail", "key-" + i, "f", "{}", T0.plusMillis(i)));
      }
      c.commit();
    }
  }

  private static Lease lease() {
    Instant now = T0.plus(Duration.ofHours(1));
    return new Lease("me", now.plusSeconds(30), now);
  }

  private static String id(int i) {
    return "op-" + String.format("%05d", i);
  }

  private static String stamp(Instant t) {
    return t.truncatedTo(ChronoUnit.SECONDS).toString().replace("T", " ").replace("Z", "");
  }

  /** Rows and index entries this transaction read from once_operation and its indexes. */
  private static long postgresRowsRead(Connection c) throws SQLException {
    return single(
        c,
        "SELECT sum(pg_stat_get_xact_tuples_returned(oid) + pg_stat_get_xact_tuples_fetched(oid))"
            + " FROM pg_class WHERE relnamespace = current_schema()::regnamespace"
            + " AND (relname = 'once_operation' OR oid IN (SELECT indexrelid FROM pg_index"
            + " WHERE indrelid = 'once_operation'::regclass))");
  }

  /** Index and table reads of this session (InnoDB's handler counters). */
  private static long mariaDbRowsRead(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW SESSION STATUS LIKE 'Handler_read%'")) {
      long sum = 0;
      while (rs.next()) {
        sum += rs.getLong(2);
      }
      return sum;
    }
  }

  private static long single(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
