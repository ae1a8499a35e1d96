package dev.once;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.OperationFixture.Crash;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OperationsTest {
  private static final String CHARGE = "{\"order\":\"814\",\"amount\":1250}";
  private final OperationFixture f = new OperationFixture(true);

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void theKeyIsCommittedBeforeTheFirstCallAndTheStoredResultIsReturnedLater() {
    Operations charges =
        f.operations(
            b ->
                b.call(
                    (key, request) -> {
                      // read from another connection: the key is committed, the row taken
                      assertThat(f.count("idempotency_key = ? AND state = 'IN_FLIGHT'", key))
                          .isOne();
                      return f.provider.call(key, request);
                    }));

    OperationResult first = charges.call("charge:814", CHARGE);
    OperationResult second = charges.call("charge:814", CHARGE);

    assertThat(first.state()).isEqualTo(OperationState.SUCCEEDED);
    assertThat(second).isEqualTo(first);
    assertThat(f.provider.calls()).isOne();
    assertThat(f.provider.performed(CHARGE)).isOne();
  }

  @Test
  void aCrashAfterTheKeyIsStoredLeadsToARetryWithTheSameKey() {
    Operations charges = f.operations();
    f.crash.afterKeyStored.set(1);
    assertThatThrownBy(() -> charges.call("charge:814", CHARGE)).isInstanceOf(Crash.class);
    String key = charges.find("charge:814").orElseThrow().idempotencyKey();
    assertThat(f.count("state = 'PENDING'")).as("handed back, never called").isOne();
    assertThat(f.provider.calls()).isZero();

    f.clock.advance(OperationFixture.LEASE.plusSeconds(1));
    OperationResult retried = charges.call("charge:814", CHARGE);

    assertThat(retried.state()).isEqualTo(OperationState.SUCCEEDED);
    assertThat(retried.idempotencyKey()).isEqualTo(key);
    assertThat(f.provider.ledger()).extracting(a -> a.key()).containsExactly(key);
  }

  @Test
  void aCrashAfterTheProviderAcceptedLeadsToOneChargeAndTheFirstResult() {
    Operations charges = f.operations(b -> b.lookup(ProviderLookup.NONE)); // replay by key only
    f.crash.afterAccepted.set(1);
    assertThatThrownBy(() -> charges.call("charge:814", CHARGE)).isInstanceOf(Crash.class);
    assertThat(f.provider.performed(CHARGE)).isOne();

    f.clock.advance(OperationFixture.LEASE.plusSeconds(1));
    OperationResult retried = charges.call("charge:814", CHARGE);

    assertThat(retried.state()).isEqualTo(OperationState.SUCCEEDED);
    assertThat(retried.result()).isEqualTo(f.provider.ledger().get(0).response());
    assertThat(retried.resolution()).contains("inside the provider's window");
    assertThat(f.provider.performed(CHARGE)).isOne();
  }

  @Test
  void eightConcurrentCallersOfOneOperationMakeOneCall() throws Exception {
    Operations charges = f.operations();
    f.provider.delay(200);
    List<OperationResult> results = concurrently(8, i -> charges.call("charge:814", CHARGE));
    assertOneChargeSeenByAll(results);
  }

  @Test
  void eightConcurrentCallersAfterACrashBeforeTheCallMakeOneCallWithTheStoredKey()
      throws Exception {
    crashThenCollide(() -> f.crash.afterKeyStored.set(1));
  }

  @Test
  void eightConcurrentCallersAfterACrashAfterAcceptanceMakeOneCharge() throws Exception {
    crashThenCollide(() -> f.crash.afterAccepted.set(1));
  }

  private void crashThenCollide(Runnable arm) throws Exception {
    Operations charges = f.operations();
    arm.run();
    assertThatThrownBy(() -> charges.call("charge:814", CHARGE)).isInstanceOf(Crash.class);
    String key = charges.find("charge:814").orElseThrow().idempotencyKey();
    f.clock.advance(OperationFixture.LEASE.plusSeconds(1));
    f.provider.delay(100);

    List<OperationResult> results = concurrently(8, i -> charges.call("charge:814", CHARGE));

    assertOneChargeSeenByAll(results);
    assertThat(results).allMatch(r -> r.idempotencyKey().equals(key));
  }

  @Test
  void theCrashTestsCatchAnImplementationThatMakesAFreshKeyPerAttempt() {
    // broken: ignores the stored key and mints a new one on every attempt
    Operations broken =
        f.operations(
            b ->
                b.lookup(ProviderLookup.NONE)
                    .call(
                        (key, request) -> f.provider.call(UUID.randomUUID().toString(), request)));
    f.crash.afterAccepted.set(1);
    assertThatThrownBy(() -> broken.call("charge:814", CHARGE)).isInstanceOf(Crash.class);
    f.clock.advance(OperationFixture.LEASE.plusSeconds(1));
    broken.call("charge:814", CHARGE);

    // the check the crash tests make ("performed once") sees the double charge
    assertThat(f.provider.performed(CHARGE)).isEqualTo(2);
  }

  @Test
  void aDefinitiveRefusalIsStoredAsFailedAndNeverCalledAgain() {
    Operations charges =
        f.operations(
            b ->
                b.call(
                    (key, request) -> {
                      f.provider.call(key, "declined");
                      throw new ProviderRejectedException("402 card declined", "{\"declined\":1}");
                    }));
    OperationResult first = charges.call("charge:814", CHARGE);
    OperationResult second = charges.call("charge:814", CHARGE);

    assertThat(first.state()).isEqualTo(OperationState.FAILED);
    assertThat(first.result()).isEqualTo("{\"declined\":1}");
    assertThat(second).isEqualTo(first);
    assertThat(f.provider.calls()).isOne();
  }

  private void assertOneChargeSeenByAll(List<OperationResult> results) {
    assertThat(f.provider.performed(CHARGE)).isOne();
    String response = f.provider.ledger().get(0).response();
    assertThat(results)
        .allSatisfy(
            r -> {
              assertThat(r.state()).isEqualTo(OperationState.SUCCEEDED);
              assertThat(r.result()).isEqualTo(response);
            });
    assertThat(f.count("state = 'SUCCEEDED'")).isOne();
  }

  static <T> List<T> concurrently(int n, Function<Integer, T> work) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(n);
    CountDownLatch start = new CountDownLatch(1);
    Set<String> threads = ConcurrentHashMap.newKeySet();
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int id = i;
        futures.add(
            pool.submit(
                () -> {
                  threads.add(Thread.currentThread().getName());
                  start.await();
                  return work.apply(id);
                }));
      }
      start.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> fu : futures) {
        results.add(fu.get());
      }
      assertThat(threads).hasSize(n);
      return results;
    } finally {
      pool.shutdownNow();
    }
  }
}
