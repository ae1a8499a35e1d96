package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.CountingDataSource;
import dev.once.test.FakeProvider;
import dev.once.test.TestDatabase;
import dev.once.testkit.SettableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A reconciler's claim holds for a lease and a tenth, so an operation started within that tenth is
 * called without a renewal, and every call still starts with a full lease. Counted in connections
 * (one statement each): a reconciled operation costs the claim, the stored answer and its read — 3,
 * where the renewal before every call made it 4.
 */
class ReconcilerLeaseTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private final TestDatabase db = TestDatabase.embedded();
  private final CountingDataSource counted = new CountingDataSource(db.dataSource());
  private final SettableClock clock = SettableClock.stoppedNow();
  private final FakeProvider provider = new FakeProvider(true, Duration.ofHours(24), clock);
  private final TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
  private final Once once =
      Once.builder()
          .dataSource(counted)
          .transport(transport)
          .destinations("orders")
          .clock(clock)
          .build();
  private final List<Long> leaseLeftAtCall = new ArrayList<>();

  @AfterEach
  void close() {
    once.close();
    transport.close();
    db.close();
  }

  private Operations operations(int batch, Duration eachCallTakes) {
    return once.operations("payments")
        .idempotencyWindow(Duration.ofHours(24))
        .call(
            (key, request) -> {
              leaseLeftAtCall.add(leaseLeftSeconds(key));
              clock.advance(eachCallTakes);
              return provider.call(key, request);
            })
        .lookup(provider::lookup)
        .whenUncertain(ReconcilePolicy.PREFER_MISSED)
        .lease(LEASE)
        .reconcileBatchSize(batch)
        .build();
  }

  private void request(Operations ops, int n) {
    once.inTransaction(
        tx -> {
          for (int i = 1; i <= n; i++) {
            ops.request(tx, "charge:" + i, "{\"order\":" + i + "}");
          }
          return null;
        });
  }

  @Test
  void aReconciledOperationCostsThreeStatementsNotFour() {
    Operations charges = operations(1, Duration.ZERO);
    request(charges, 1);
    Reconciler reconciler = charges.newReconciler();

    long before = counted.asked();
    assertThat(reconciler.runOnce()).isOne();

    assertThat(counted.asked() - before)
        .as("connections: claim, stored answer, its read; no renewal")
        .isEqualTo(3);
    assertThat(provider.calls()).isOne();
  }

  @Test
  void everyCallStartsWithAFullLeaseRenewedOnlyWhenTheClaimsOwnRanShort() {
    Operations charges = operations(3, Duration.ofSeconds(2)); // the tenth: 3 s
    request(charges, 3);
    Reconciler reconciler = charges.newReconciler();

    long before = counted.asked();
    assertThat(reconciler.runOnce()).isEqualTo(3);

    assertThat(leaseLeftAtCall)
        .as("lease left at each call, seconds: claim + 33 s at 0 s and 2 s, renewed at 4 s")
        .containsExactly(33L, 31L, 30L);
    assertThat(counted.asked() - before)
        .as("connections: claim, 2 per call, 1 renewal of the third")
        .isEqualTo(1 + 3 * 2 + 1);
  }

  /** Seconds from now until the operation's lease ends, read from the table. */
  private long leaseLeftSeconds(String key) {
    long now = clock.instant().getEpochSecond();
    return db.count(
            "SELECT CAST(FLOOR(EXTRACT(EPOCH FROM lease_until)) AS bigint) FROM once_operation"
                + " WHERE idempotency_key = ?",
            key)
        - now;
  }
}
