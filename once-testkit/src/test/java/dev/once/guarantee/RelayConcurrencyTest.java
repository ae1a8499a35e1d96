package dev.once.guarantee;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Event;
import dev.once.EventId;
import dev.once.Relay;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.JdbcDialect;
import dev.once.jdbc.JdbcStore;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Two relays on one outbox: every row published once, none lost, per-key order kept. */
class RelayConcurrencyTest {
  private static final int ROWS = 10_000;
  private static final int KEYS = 100;

  @ParameterizedTest
  @EnumSource(DatabaseKind.class)
  void twoRelaysPublishTenThousandRowsWithoutLossAndInKeyOrder(DatabaseKind kind) throws Exception {
    try (TestDatabase db = kind.get();
        Harness h = new Harness(db, b -> b.relayBatchSize(100))) {
      publishAndCheck(h, db);
    }
  }

  /** The same checks fail for relays that claim rows without holding their partitions. */
  @ParameterizedTest
  @EnumSource(DatabaseKind.class)
  void theSameChecksCatchRelaysThatDoNotLockTheirPartitions(DatabaseKind kind) {
    try (TestDatabase db = kind.get();
        Harness h = new Harness(db, b -> b.relayBatchSize(100).dialect(noPartitionLocks(db)))) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> publishAndCheck(h, db))
          .isInstanceOf(AssertionError.class);
    }
  }

  /** A deliberately broken relay: every relay believes it holds every partition. */
  private static Dialect noPartitionLocks(TestDatabase db) {
    JdbcDialect dialect = (JdbcDialect) db.dialect();
    return dialect.withStore(
        new JdbcStore(dialect.flavour()) {
          @Override
          public List<Integer> lockPartitions(Connection c, List<Integer> partitions) {
            return partitions;
          }
        });
  }

  private static void publishAndCheck(Harness h, TestDatabase db) throws Exception {
    h.transport.declare(Harness.DEST, "warehouse");
    for (int start = 0; start < ROWS; start += 1_000) {
      int from = start;
      h.once.inTransaction(
          tx -> {
            for (int i = from; i < from + 1_000; i++) {
              String key = "k" + (i % KEYS);
              tx.publish(Event.of(EventId.of("e", key, i), Harness.DEST, key, "T", "{}"));
            }
            return null;
          });
    }

    List<Integer> perRelay = runTwoRelays(h);

    assertThat(db.count("SELECT count(*) FROM once_outbox WHERE sent_at IS NULL")).isZero();
    assertThat(db.count("SELECT count(*) FROM once_queue")).as("published").isEqualTo(ROWS);
    assertThat(db.count("SELECT count(DISTINCT event_id) FROM once_queue"))
        .as("distinct")
        .isEqualTo(ROWS);
    assertThat(perRelay).as("both relays took part").allMatch(n -> n > 0);
    assertThat(
            db.count(
                """
                  SELECT count(*) FROM (
                    SELECT o.id AS outbox_id,
                           lag(o.id) OVER (PARTITION BY q.event_key ORDER BY q.id) AS earlier
                      FROM once_queue q JOIN once_outbox o USING (event_id)) s
                   WHERE earlier > outbox_id
                  """))
        .as("events published before an earlier event of their key")
        .isZero();
  }

  /**
   * Each relay runs batches on its own thread until the outbox is empty; returns rows per relay.
   */
  private static List<Integer> runTwoRelays(Harness h) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<Integer>> counts = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        Relay relay = h.once.newRelay();
        counts.add(
            pool.submit(
                () -> {
                  int total = 0;
                  while (h.db.count("SELECT count(*) FROM once_outbox WHERE sent_at IS NULL") > 0) {
                    total += relay.runOnce();
                  }
                  return total;
                }));
      }
      List<Integer> result = new ArrayList<>();
      for (Future<Integer> f : counts) {
        result.add(f.get(120, TimeUnit.SECONDS));
      }
      return result;
    } finally {
      pool.shutdownNow();
    }
  }
}
