package dev.once;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.OperationFixture.Crash;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ReconciliationTest {
  private static final String EMAIL = "{\"to\":\"a@example.org\",\"dispatch\":\"814\"}";
  private OperationFixture f;

  @AfterEach
  void close() {
    f.close();
  }

  /** A provider without idempotency whose first answer is lost after it acted. */
  private Operations lostAnswer(ReconcilePolicy policy, ProviderLookup lookup) {
    f = new OperationFixture(false);
    Operations emails = f.operations(b -> b.whenUncertain(policy).lookup(lookup));
    f.provider.dropResponses(1);
    assertThat(emails.call("email:814", EMAIL).state()).isEqualTo(OperationState.UNKNOWN);
    assertThat(f.provider.performed(EMAIL)).isOne();
    return emails;
  }

  private OperationResult reconcile(Operations ops) {
    Reconciler reconciler = ops.newReconciler();
    assertThat(reconciler.runOnce()).as("not due before its retry delay").isZero();
    f.clock.advance(Duration.ofSeconds(2));
    assertThat(reconciler.runOnce()).isOne();
    return ops.find("email:814").orElseThrow();
  }

  @ParameterizedTest
  @EnumSource(ReconcilePolicy.class)
  void whenTheProviderFindsItTheRecordIsTheResultAndNothingIsCalled(ReconcilePolicy policy) {
    Operations emails = lostAnswer(policy, (key, id) -> f.provider.lookup(key, id));
    OperationResult done = reconcile(emails);

    assertThat(done.state()).isEqualTo(OperationState.SUCCEEDED);
    assertThat(done.result()).isEqualTo(f.provider.ledger().get(0).response());
    assertThat(done.resolution()).contains("provider has a record");
    assertThat(f.provider.calls()).isOne();
  }

  @ParameterizedTest
  @EnumSource(ReconcilePolicy.class)
  void whenTheProviderHasNoRecordItIsCalledAgainWithTheSameKey(ReconcilePolicy policy) {
    f = new OperationFixture(false);
    AtomicBoolean timedOut = new AtomicBoolean();
    Operations emails =
        f.operations(
            b ->
                b.whenUncertain(policy)
                    .call(
                        (key, request) -> {
                          if (timedOut.compareAndSet(false, true)) {
                            throw new IOException("read timed out"); // never reached it
                          }
                          return f.provider.call(key, request);
                        }));
    OperationResult first = emails.call("email:814", EMAIL);
    assertThat(first.state()).isEqualTo(OperationState.UNKNOWN);

    OperationResult done = reconcile(emails);

    assertThat(done.state()).isEqualTo(OperationState.SUCCEEDED);
    assertThat(done.resolution()).contains("no record");
    assertThat(f.provider.ledger())
        .extracting(a -> a.key())
        .containsExactly(first.idempotencyKey());
  }

  @Test
  void whenTheProviderCannotTellPreferMissedAbandonsAndRecordsWhy() {
    Operations emails =
        lostAnswer(ReconcilePolicy.PREFER_MISSED, (k, id) -> LookupAnswer.cannotTell("no log"));
    OperationResult done = reconcile(emails);

    assertThat(done.state()).isEqualTo(OperationState.ABANDONED);
    assertThat(done.resolution())
        .contains("cannot tell (no log)", "cannot deduplicate", "PREFER_MISSED");
    assertThat(f.provider.calls()).isOne();
    assertThat(emails.call("email:814", EMAIL)).isEqualTo(done); // final: no further call
    assertThat(f.provider.calls()).isOne();
  }

  @Test
  void whenTheProviderCannotTellPreferDuplicateCallsAgainAndRecordsTheRisk() {
    Operations emails =
        lostAnswer(ReconcilePolicy.PREFER_DUPLICATE, (k, id) -> LookupAnswer.cannotTell("no log"));
    OperationResult done = reconcile(emails);

    assertThat(done.state()).isEqualTo(OperationState.SUCCEEDED);
    assertThat(done.resolution()).contains("PREFER_DUPLICATE: called again");
    // the risk the policy chose, visible at the provider: a provider without idempotency acted
    // twice
    assertThat(f.provider.performed(EMAIL)).isEqualTo(2);
  }

  @Test
  void aLookupThatFailsLeavesTheOperationUnknownForLater() {
    Operations emails =
        lostAnswer(
            ReconcilePolicy.PREFER_DUPLICATE,
            (k, id) -> {
              throw new IOException("lookup endpoint down");
            });
    OperationResult later = reconcile(emails);

    assertThat(later.state()).isEqualTo(OperationState.UNKNOWN);
    assertThat(later.error()).contains("lookup failed", "lookup endpoint down");
    assertThat(f.provider.calls()).isOne();
  }

  @ParameterizedTest
  @EnumSource(ReconcilePolicy.class)
  void aRetryAfterTheProvidersKeyWindowIsNeverBlind(ReconcilePolicy policy) {
    f = new OperationFixture(true);
    Operations charges = f.operations(b -> b.whenUncertain(policy).lookup(ProviderLookup.NONE));
    f.crash.afterAccepted.set(1);
    assertThatThrownBy(() -> charges.call("charge:814", EMAIL)).isInstanceOf(Crash.class);
    f.clock.advance(Duration.ofHours(25)); // the provider forgot the key

    OperationResult after = charges.call("charge:814", EMAIL);

    assertThat(after.resolution()).contains("older than the provider's window", policy.name());
    if (policy == ReconcilePolicy.PREFER_MISSED) {
      assertThat(after.state()).isEqualTo(OperationState.ABANDONED);
      assertThat(f.provider.performed(EMAIL)).isOne();
    } else {
      assertThat(after.state()).isEqualTo(OperationState.SUCCEEDED);
      assertThat(f.provider.performed(EMAIL)).isEqualTo(2); // the duplicate the policy accepted
    }
  }

  @Test
  void aLookupAfterTheWindowFindsTheChargeAndPreventsASecondOne() {
    f = new OperationFixture(true);
    Operations charges = f.operations(b -> b.whenUncertain(ReconcilePolicy.PREFER_DUPLICATE));
    f.crash.afterAccepted.set(1);
    assertThatThrownBy(() -> charges.call("charge:814", EMAIL)).isInstanceOf(Crash.class);
    f.clock.advance(Duration.ofHours(25));

    OperationResult after =
        charges.newReconciler().runOnce() == 1 ? charges.find("charge:814").get() : null;

    assertThat(after).isNotNull();
    assertThat(after.state()).isEqualTo(OperationState.SUCCEEDED);
    assertThat(f.provider.performed(EMAIL)).isOne();
  }
}
