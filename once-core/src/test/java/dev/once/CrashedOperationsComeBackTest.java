package dev.once;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.OperationFixture.Crash;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An {@code Error} thrown in this process while an operation runs (a crash the process lives
 * through) hands the operation back at once with its retry delay (1 s here), and a reconciler's
 * other claimed operations are released: counted in reconciler runs and clock steps, with a lease
 * (30 s) the clock never reaches. Before, the crashed operation and the rest of the reconciler's
 * batch stayed IN_FLIGHT until their lease ran out (the demo's tail: 3 s per crash). A process that
 * dies without a word is still covered by the lease.
 */
class CrashedOperationsComeBackTest {
  private static final String CHARGE = "{\"order\":\"814\",\"amount\":1250}";
  private static final Duration RETRY_DELAY = Duration.ofSeconds(1);
  private final OperationFixture f = new OperationFixture(true);

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void aCrashBeforeTheCallHandsItBackPendingForItsRetryDelayNotItsLease() {
    Operations charges = f.operations();
    f.crash.afterKeyStored.set(1);
    assertThatThrownBy(() -> charges.call("charge:814", CHARGE)).isInstanceOf(Crash.class);

    assertThat(f.count("state = 'PENDING' AND owner IS NULL AND attempts = 1")).isOne();
    assertThat(f.count("last_error LIKE 'crashed (an Error in this process)%'")).isOne();
    Reconciler reconciler = charges.newReconciler();
    assertThat(reconciler.runOnce()).as("not due before its retry delay").isZero();
    f.clock.advance(RETRY_DELAY);
    assertThat(reconciler.runOnce()).as("due after its retry delay, not its lease").isOne();

    assertThat(charges.find("charge:814").orElseThrow().state())
        .isEqualTo(OperationState.SUCCEEDED);
    assertThat(f.provider.performed(CHARGE)).isOne();
  }

  @Test
  void aCrashAfterTheProviderAcceptedHandsItBackUnknownAndItIsReconciledNotCalledAgain() {
    Operations charges = f.operations();
    f.crash.afterAccepted.set(1);
    assertThatThrownBy(() -> charges.call("charge:814", CHARGE)).isInstanceOf(Crash.class);

    assertThat(f.count("state = 'UNKNOWN' AND owner IS NULL")).isOne();
    f.clock.advance(RETRY_DELAY);
    assertThat(charges.newReconciler().runOnce()).isOne();

    OperationResult after = charges.find("charge:814").orElseThrow();
    assertThat(after.state()).isEqualTo(OperationState.SUCCEEDED);
    assertThat(after.resolution()).contains("provider has a record of it");
    assertThat(f.provider.performed(CHARGE)).isOne();
  }

  @Test
  void aCrashInAReconcilersBatchReleasesTheOthersAtOnce() {
    Operations emails = f.operations(b -> b.reconcileBatchSize(4));
    f.once.inTransaction(
        tx -> {
          for (int i = 1; i <= 4; i++) {
            emails.request(tx, "email:" + i, "{\"email\":" + i + "}");
          }
          return null;
        });
    Reconciler reconciler = emails.newReconciler();
    f.crash.afterKeyStored.set(1);
    assertThatThrownBy(reconciler::runOnce).isInstanceOf(Crash.class);

    assertThat(f.count("state = 'PENDING' AND owner IS NULL AND attempts = 0"))
        .as("the three the crash kept from starting, released as they were")
        .isEqualTo(3);
    AtomicInteger runs = new AtomicInteger();
    int taken = 0;
    for (int step = 0; step < 3 && taken < 4; step++) {
      for (int n = reconciler.runOnce(); n > 0; n = reconciler.runOnce()) {
        runs.incrementAndGet();
        taken += n;
      }
      f.clock.advance(RETRY_DELAY);
    }

    assertThat(taken).as("operations taken after the crash, within 2 retry delays").isEqualTo(4);
    assertThat(runs.get()).as("reconciler runs that took something").isEqualTo(2);
    assertThat(f.count("state = 'SUCCEEDED'")).isEqualTo(4);
    assertThat(f.provider.calls()).isEqualTo(4);
  }

  @Test
  void aCallerThatDiesWithoutAWordIsStillCoveredByItsLease() {
    Operations charges = f.operations();
    f.crash.afterKeyStored.set(1);
    assertThatThrownBy(() -> charges.call("charge:814", CHARGE)).isInstanceOf(Crash.class);
    // as a killed process leaves it: held, nothing handed back
    Instant leaseUntil = f.clock.instant().plus(OperationFixture.LEASE);
    f.db.execute(
        "UPDATE once_operation SET state = 'IN_FLIGHT', owner = '4242/dead', lease_until = '"
            + leaseUntil
            + "'");
    Reconciler reconciler = charges.newReconciler();

    f.clock.advance(RETRY_DELAY);
    assertThat(reconciler.runOnce()).as("held while the lease runs").isZero();
    f.clock.advance(OperationFixture.LEASE);
    assertThat(reconciler.runOnce()).isOne();

    assertThat(charges.find("charge:814").orElseThrow().state())
        .isEqualTo(OperationState.SUCCEEDED);
    assertThat(f.provider.performed(CHARGE)).isOne();
  }
}
