package dev.once;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.SchemaStatus.Applied;
import dev.once.internal.schema.SchemaFiles;
import dev.once.jdbc.Dialect;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One lifecycle for the schema, on PostgreSQL and MariaDB: {@link Schema#apply} records what it ran
 * in the history table, applying again is a no-op, a schema at any earlier version is brought up to
 * date with its data kept, a schema an earlier Once created without a history is recorded and
 * upgraded, and a schema newer than this Once refuses to start.
 */
class SchemaLifecycleTest {

  @ParameterizedTest
  @ValueSource(strings = {"embedded", "mariadb"})
  void applyingTwiceRecordsEachMigrationOnceAndChangesNothing(String kind) {
    try (TestDatabase db = TestDatabase.empty(kind)) {
      SchemaStatus first = Schema.apply(db.dataSource());
      SchemaStatus second = Schema.apply(db.dataSource());

      int expected = Schema.expectedVersion(db.dialect());
      assertThat(first.upToDate()).isTrue();
      assertThat(second.applied()).isEqualTo(first.applied());
      assertThat(second.applied())
          .extracting(Applied::version)
          .containsExactlyElementsOf(IntStream.rangeClosed(1, expected).boxed().toList());
      assertThat(second.applied()).allSatisfy(a -> assertThat(a.type()).isEqualTo("SQL"));
      assertThat(second.applied()).allSatisfy(a -> assertThat(a.checksum()).isNotNull());
      Schema.check(db.dataSource());
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"embedded", "mariadb"})
  void aSchemaAtEveryEarlierVersionIsUpgradedAndKeepsItsData(String kind) {
    int expected = expectedVersion(kind);
    eachVersion(
        1,
        expected - 1,
        k -> {
          try (TestDatabase db = TestDatabase.empty(kind)) {
            Schema.apply(db.dataSource(), db.dialect(), k);
            assertThat(Schema.status(db.dataSource()).appliedVersion()).isEqualTo(k);
            assertThatThrownBy(() -> Schema.check(db.dataSource()))
                .isInstanceOf(SchemaVersionException.class)
                .hasMessageContaining("is at version " + k + ", this Once needs " + expected)
                .hasMessageContaining("pending: V" + (k + 1));
            insertData(db);
            Map<String, Long> before = rowCounts(db);

            SchemaStatus after = Schema.apply(db.dataSource());

            assertThat(after.upToDate()).as("from V%d", k).isTrue();
            assertThat(rowCounts(db)).as("from V%d", k).containsAllEntriesOf(before);
            Schema.check(db.dataSource());
          }
        });
  }

  @ParameterizedTest
  @ValueSource(strings = {"embedded", "mariadb"})
  void aSchemaCreatedWithoutAHistoryIsRecordedAtItsVersionThenUpgraded(String kind) {
    int expected = expectedVersion(kind);
    eachVersion(
        1,
        expected,
        k -> {
          try (TestDatabase db = TestDatabase.empty(kind)) {
            applyWithoutHistory(db, k); // what Schema.apply did before it kept a history
            insertData(db);
            Map<String, Long> before = rowCounts(db);

            SchemaStatus after = Schema.apply(db.dataSource());

            assertThat(after.upToDate()).as("from unrecorded V%d", k).isTrue();
            assertThat(after.applied().get(0).type()).as("from V%d", k).isEqualTo("BASELINE");
            assertThat(after.applied().get(0).version()).as("from V%d", k).isEqualTo(k);
            assertThat(after.applied()).as("from V%d", k).hasSize(1 + expected - k);
            assertThat(rowCounts(db)).as("from V%d", k).containsAllEntriesOf(before);
          }
        });
  }

  /**
   * Runs {@code check} for every version from {@code first} to {@code last}, three at a time: each
   * on a database of its own, so they are independent, and most of each one's time is the server's
   * (DDL, commits), not this JVM's. The first failure (in version order) fails the test, naming its
   * version.
   */
  private static void eachVersion(int first, int last, IntConsumer check) {
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<?>> runs = new ArrayList<>();
      for (int k = first; k <= last; k++) {
        int version = k;
        runs.add(
            pool.submit(
                () -> {
                  try {
                    check.accept(version);
                  } catch (RuntimeException e) { // a store's failure, named by its version
                    throw new AssertionError("from V" + version + ": " + e, e);
                  }
                }));
      }
      for (Future<?> run : runs) {
        run.get();
      }
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } finally {
      pool.shutdownNow();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"embedded", "mariadb"})
  void aBaselineAtZeroLeftByTheOldFlywaySetupIsMovedToTheVersionFound(String kind) {
    try (TestDatabase db = TestDatabase.empty(kind)) {
      Schema.baseline(db.dataSource()); // the history table, empty
      db.execute(
          "INSERT INTO once_schema_history (installed_rank, version, description, type, script,"
              + " installed_by, execution_time, success) VALUES (1, '0', '<< Flyway Baseline >>',"
              + " 'BASELINE', '<< Flyway Baseline >>', 'x', 0, true)");
      applyWithoutHistory(db, 2);

      SchemaStatus after = Schema.apply(db.dataSource());

      assertThat(after.upToDate()).isTrue();
      assertThat(after.applied().get(0).version()).isEqualTo(2);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"embedded", "mariadb"})
  void aSchemaNewerThanThisOnceRefusesToStartAndIsLeftAlone(String kind) {
    try (TestDatabase db = TestDatabase.empty(kind)) {
      Schema.apply(db.dataSource());
      int newer = Schema.expectedVersion(db.dialect()) + 1;
      db.execute(
          "INSERT INTO once_schema_history (installed_rank, version, description, type, script,"
              + " checksum, installed_by, execution_time, success) VALUES (100, '"
              + newer
              + "', 'from the future', 'SQL', 'V"
              + newer
              + "__from_the_future.sql', 1, 'x', 0, true)");
      String says =
          "is at version " + newer + ", newer than this Once, which knows versions up to ";

      assertThatThrownBy(() -> Schema.apply(db.dataSource()))
          .isInstanceOf(SchemaVersionException.class)
          .hasMessageContaining(says);
      assertThatThrownBy(() -> Schema.check(db.dataSource()))
          .isInstanceOf(SchemaVersionException.class)
          .hasMessageContaining(says);
      assertThat(Schema.status(db.dataSource()).newerThanCode()).isTrue();
      assertThat(Schema.status(db.dataSource()).applied()).hasSize(newer);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"embedded", "mariadb"})
  void twoProcessesApplyingAtOnceTakeTurns(String kind) throws Exception {
    try (TestDatabase db = TestDatabase.empty(kind);
        var other = db.newPool(2)) {
      CyclicBarrier start = new CyclicBarrier(2);
      CompletableFuture<SchemaStatus> a =
          CompletableFuture.supplyAsync(
              () -> awaitThen(start, () -> Schema.apply(db.dataSource())));
      CompletableFuture<SchemaStatus> b =
          CompletableFuture.supplyAsync(() -> awaitThen(start, () -> Schema.apply(other)));

      assertThat(a.get().upToDate()).isTrue();
      assertThat(b.get().upToDate()).isTrue();
      assertThat(Schema.status(db.dataSource()).applied())
          .hasSize(Schema.expectedVersion(db.dialect()));
    }
  }

  /**
   * A migration that fails: on PostgreSQL nothing of it stays and the history says nothing; on
   * MariaDB its DDL committed statement by statement, so the history records the failure and the
   * next apply refuses with what to repair instead of stumbling on a half-made table.
   */
  @ParameterizedTest
  @ValueSource(strings = {"embedded", "mariadb"})
  void aFailedMigrationIsNeverRecordedAsApplied(String kind) {
    try (TestDatabase db = TestDatabase.empty(kind)) {
      Schema.apply(db.dataSource(), db.dialect(), 1);
      db.execute("CREATE TABLE once_suspect (foreign_column INT)"); // V2 or V5 creates it

      assertThatThrownBy(() -> Schema.apply(db.dataSource()))
          .isInstanceOf(StoreException.class)
          .hasMessageContaining("once_suspect");

      SchemaStatus status = Schema.status(db.dataSource());
      if (db.isMariaDb()) {
        assertThat(status.failed()).extracting(Applied::version).containsExactly(2);
        assertThatThrownBy(() -> Schema.apply(db.dataSource()))
            .isInstanceOf(SchemaVersionException.class)
            .hasMessageContaining("migration V2 (once suspect)")
            .hasMessageContaining("delete its row");
      } else {
        assertThat(status.failed()).isEmpty();
        assertThat(status.appliedVersion()).isEqualTo(1);
        assertThat(
                db.count(
                    "SELECT count(*) FROM information_schema.tables"
                        + " WHERE table_schema = current_schema() AND table_name = 'once_operation'"))
            .as("V2's table, rolled back with the failed V5")
            .isZero();
      }
    }
  }

  /**
   * The shipped migrations are never edited: a schema that applied them must keep validating (in
   * Flyway too). These are their checksums as Flyway computes them; a changed file needs a new
   * migration instead.
   */
  @org.junit.jupiter.api.Test
  void shippedMigrationsKeepTheirChecksums() {
    assertThat(checksums(dev.once.jdbc.Dialects.postgresql())).containsExactly(PG_CHECKSUMS);
    assertThat(checksums(dev.once.jdbc.Dialects.mariadb())).containsExactly(MARIADB_CHECKSUMS);
  }

  private static final Integer[] PG_CHECKSUMS = {
    190935522,
    2089795295,
    -353042055,
    -1437827179,
    186147699,
    -2060290396,
    598286253,
    357293583,
    617027921,
    889720700
  };
  private static final Integer[] MARIADB_CHECKSUMS = {
    1305545322, -1783117133, 246309634, 40972886, -1177360004, 1443912306
  };

  private static List<Integer> checksums(Dialect dialect) {
    List<Integer> sums = new ArrayList<>();
    Schema.migrations(dialect).values().forEach(text -> sums.add(SchemaFiles.checksum(text)));
    return sums;
  }

  private static int expectedVersion(String kind) {
    return Schema.expectedVersion(
        kind.equals("mariadb")
            ? dev.once.jdbc.Dialects.mariadb()
            : dev.once.jdbc.Dialects.postgresql());
  }

  private static void applyWithoutHistory(TestDatabase db, int upTo) {
    int version = 0;
    for (String text : Schema.migrations(db.dialect()).values()) {
      if (++version > upTo) {
        return;
      }
      for (String statement : SchemaFiles.statements(text)) {
        db.execute(statement);
      }
    }
  }

  /** An inbox marker and an outbox row: V1's tables, there at every version. */
  private static void insertData(TestDatabase db) {
    db.execute("INSERT INTO once_inbox (consumer_id, event_id) VALUES ('shipping', 'order:1')");
    db.execute(
        db.isMariaDb()
            ? "INSERT INTO once_outbox (event_id, destination, event_type, payload, headers,"
                + " key_partition) VALUES ('order:1', 'orders', 'OrderPaid', 'x', '', 3)"
            : "INSERT INTO once_outbox (event_id, destination, event_type, payload, key_partition)"
                + " VALUES ('order:1', 'orders', 'OrderPaid', 'x', 3)");
  }

  /** Rows of every Once table (the history aside). */
  private static Map<String, Long> rowCounts(TestDatabase db) {
    Map<String, Long> counts = new LinkedHashMap<>();
    List<String> tables = new ArrayList<>();
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement();
        var rs =
            s.executeQuery(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = '"
                    + db.schema()
                    + "' AND table_name LIKE 'once%' AND table_name <> 'once_schema_history'"
                    + " ORDER BY table_name")) {
      while (rs.next()) {
        tables.add(rs.getString(1));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    tables.forEach(t -> counts.put(t, db.count("SELECT count(*) FROM " + t)));
    assertThat(counts.get("once_inbox")).isEqualTo(1);
    return counts;
  }

  private static <T> T awaitThen(CyclicBarrier barrier, java.util.function.Supplier<T> work) {
    try {
      barrier.await();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return work.get();
  }
}
