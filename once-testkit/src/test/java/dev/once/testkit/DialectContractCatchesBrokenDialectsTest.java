package dev.once.testkit;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.internal.postgres.PostgresFlavour;
import dev.once.internal.postgres.PostgresQueue;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.JdbcDialect;
import dev.once.jdbc.JdbcStore;
import dev.once.jdbc.QueueClaim;
import dev.once.jdbc.QueueDialect;
import dev.once.jdbc.StoreDialect;
import dev.once.spi.Delivery;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The dialect contract's checks can fail: each catches a deliberately broken dialect. */
class DialectContractCatchesBrokenDialectsTest {
  private static TestDatabase db;

  @BeforeAll
  static void open() {
    db = TestDatabase.embedded();
  }

  @AfterAll
  static void close() {
    db.close();
  }

  /** The contract on the test database with {@code store} as the store part. */
  private static DialectContract with(StoreDialect store) {
    return on(((JdbcDialect) db.dialect()).withStore(store));
  }

  /** The contract on the test database with {@code broken} as the dialect. */
  private static DialectContract on(Dialect broken) {
    return new DialectContract() {
      @Override
      public DataSource dataSource() {
        return db.dataSource();
      }

      @Override
      public Dialect dialect() {
        return broken;
      }
    };
  }

  @Test
  void relayPartitionsThatAreNeverHeldFailThePartitionCheck() {
    DialectContract contract =
        on(
            JdbcDialect.of(
                new PostgresFlavour() {
                  @Override
                  public List<Integer> lockPartitions(Connection c, List<Integer> partitions) {
                    return partitions;
                  }
                }));
    assertThatThrownBy(contract::aPartitionOneTransactionHoldsIsSkippedByAnotherUntilItEnds)
        .isInstanceOf(AssertionError.class);
  }

  @Test
  void versionsStoredWhetherNewerOrNotFailTheVersionCheck() {
    DialectContract contract =
        with(
            new JdbcStore(db.dialect().flavour()) {
              @Override
              public boolean applyIfNewer(Connection c, String entity, String id, long version) {
                return true;
              }
            });
    assertThatThrownBy(contract::aVersionIsStoredOnlyIfNewer).isInstanceOf(AssertionError.class);
  }

  @Test
  void markersInsertedWithoutTheirKeyCheckFailTheMarkerCheck() {
    DialectContract contract =
        with(
            new JdbcStore(db.dialect().flavour()) {
              @Override
              public java.util.Set<String> insertMarkers(
                  Connection c,
                  dev.once.jdbc.TransactionWaits waits,
                  String consumerId,
                  List<String> eventIds) {
                return new java.util.LinkedHashSet<>(eventIds); // believes each one is new
              }
            });
    assertThatThrownBy(contract::aMarkerIsInsertedOnceAndReportedPresentTheSecondTime)
        .isInstanceOf(AssertionError.class);
  }

  /** The contract on the test database with {@code queue} as the table-queue part. */
  private static DialectContract withQueue(QueueDialect queue) {
    return on(JdbcDialect.builder(db.dialect().flavour()).queue(queue).build());
  }

  @Test
  void anOrderedClaimThatTakesEveryVisibleRowFailsTheKeyOrderCheck() {
    DialectContract contract =
        withQueue(
            new PostgresQueue((PostgresFlavour) db.dialect().flavour()) {
              @Override
              public List<Delivery> claimInKeyOrder(Connection c, QueueClaim claim)
                  throws SQLException {
                return claim(c, claim); // no head-of-key check, no park
              }
            });
    assertThatThrownBy(
            contract::aKeysLaterRowsWaitForItsHeadAndItsParkAndFollowInOrderWhenItIsReleased)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("each key's head, and only it");
  }

  @Test
  void anOrderedAckThatNeverParksAKeyFailsTheKeyOrderCheck() {
    DialectContract contract =
        withQueue(
            new PostgresQueue((PostgresFlavour) db.dialect().flavour()) {
              @Override
              public void ackInKeyOrder(Connection c, List<Long> ids, Instant now)
                  throws SQLException {
                ack(c, ids); // the dead-lettered head goes, its key is not parked
              }
            });
    assertThatThrownBy(
            contract::aKeysLaterRowsWaitForItsHeadAndItsParkAndFollowInOrderWhenItIsReleased)
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("both keys parked");
  }
}
