package dev.once.scenario.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.OperationResult;
import dev.once.OperationState;
import dev.once.Operations;
import dev.once.ProviderLookup;
import dev.once.ReconcilePolicy;
import dev.once.testkit.CrashPoint;
import dev.once.testkit.FaultInjector;
import dev.once.testkit.SimulatedCrash;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class OperationsOverHttpTest {
  private static final String CHARGE = "{\"reference\":\"charge:814\",\"order\":\"814\"}";
  private static final String MAIL = "{\"reference\":\"email:814\",\"to\":\"a@example.org\"}";
  private HttpOperations f;

  @AfterEach
  void close() {
    f.close();
  }

  @ParameterizedTest
  @EnumSource(
      value = CrashPoint.class,
      names = {"OPERATION_KEY_STORED_BEFORE_CALL", "OPERATION_ACCEPTED_BEFORE_RESULT_STORED"})
  void aCrashAtEitherWindowThenARetryChargesOnceWithTheSameKey(CrashPoint point) {
    f = new HttpOperations(SimulatorConfig.defaults(), FaultInjector.once(point, "charge:814"));
    Operations charges = f.charges(b -> b);
    assertThatThrownBy(() -> charges.call("charge:814", CHARGE)).isInstanceOf(SimulatedCrash.class);
    String key = charges.find("charge:814").orElseThrow().idempotencyKey();
    f.clock.advance(HttpOperations.LEASE.plusSeconds(1));

    OperationResult r = charges.call("charge:814", CHARGE);

    assertThat(r.state()).isEqualTo(OperationState.SUCCEEDED);
    assertThat(r.idempotencyKey()).isEqualTo(key);
    assertThat(f.sim.ledger().entries("charges")).extracting(e -> e.key()).containsExactly(key);
  }

  @ParameterizedTest
  @EnumSource(
      value = CrashPoint.class,
      names = {"OPERATION_KEY_STORED_BEFORE_CALL", "OPERATION_ACCEPTED_BEFORE_RESULT_STORED"})
  void aCrashAtEitherWindowThenEightConcurrentCallersChargeOnce(CrashPoint point) throws Exception {
    f =
        new HttpOperations(
            SimulatorConfig.defaults()
                .withSlow(Duration.ofMillis(200))
                .withFaults(new dev.once.scenario.simulator.FaultPlan(0, 0.5, 0, 0, 7)),
            FaultInjector.once(point, "charge:814"));
    Operations charges = f.charges(b -> b.lookup(ProviderLookup.NONE));
    assertThatThrownBy(() -> charges.call("charge:814", CHARGE)).isInstanceOf(SimulatedCrash.class);
    f.clock.advance(HttpOperations.LEASE.plusSeconds(1));

    List<OperationResult> results = eight(() -> charges.call("charge:814", CHARGE));

    assertThat(f.charges()).isOne();
    assertThat(results).allMatch(r -> r.state() == OperationState.SUCCEEDED);
    assertThat(results).extracting(OperationResult::result).containsOnly(results.get(0).result());
  }

  @Test
  void anUnknownOutcomeIsAskedAboutBeforeAnyRetry() {
    f = new HttpOperations(SimulatorConfig.defaults().withFaults(new FaultPlan(1, 0, 0, 0, 1)));
    Operations charges = f.charges(b -> b);
    assertThat(charges.call("charge:814", CHARGE).state()).isEqualTo(OperationState.UNKNOWN);
    f.restart(SimulatorConfig.defaults()); // a fresh provider that has no record of the charge
    f.clock.advance(Duration.ofSeconds(2));
    charges.newReconciler().runOnce();
    OperationResult r = charges.find("charge:814").orElseThrow();
    assertThat(r.resolution()).contains("no record");
    assertThat(r.state()).isEqualTo(OperationState.SUCCEEDED);
    assertThat(f.charges()).isOne();
  }

  @Test
  void aLostResponseIsFoundAtTheProviderAndNotChargedAgain() {
    f = new HttpOperations(SimulatorConfig.defaults().withFaults(new FaultPlan(0.5, 0, 0, 0, 3)));
    Operations charges = f.charges(b -> b);
    for (int i = 0; i < 20; i++) {
      charges.call("charge:" + i, "{\"reference\":\"charge:" + i + "\"}");
    }
    f.clock.advance(Duration.ofSeconds(2));
    while (charges.newReconciler().runOnce() > 0) {
      f.clock.advance(Duration.ofSeconds(2));
    }
    assertThat(f.charges()).isEqualTo(20);
    assertThat(f.db.count("SELECT count(*) FROM once_operation WHERE state = 'SUCCEEDED'"))
        .isEqualTo(20);
  }

  @ParameterizedTest
  @EnumSource(ReconcilePolicy.class)
  void anEmailWhoseAnswerWasLostFollowsThePolicyBecauseTheRelayCannotTell(ReconcilePolicy p) {
    f = new HttpOperations(SimulatorConfig.defaults().withFaults(new FaultPlan(1, 0, 0, 0, 1)));
    Operations emails = f.emails(p);
    assertThat(emails.call("email:814", MAIL).state()).isEqualTo(OperationState.UNKNOWN);
    f.restart(SimulatorConfig.defaults()); // fresh relay answering normally, no lookup (501)
    f.clock.advance(Duration.ofSeconds(2));
    emails.newReconciler().runOnce();

    OperationResult r = emails.find("email:814").orElseThrow();
    assertThat(r.resolution()).contains("cannot deduplicate", p.name());
    assertThat(r.state())
        .isEqualTo(
            p == ReconcilePolicy.PREFER_MISSED
                ? OperationState.ABANDONED
                : OperationState.SUCCEEDED);
  }

  @Test
  void aProviderUrlThatRefusesConnectionsLeavesThePendingOperationWithTheReason() throws Exception {
    f = new HttpOperations(SimulatorConfig.defaults());
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    f.client =
        new ProviderClient(URI.create("http://127.0.0.1:" + closedPort), Duration.ofSeconds(2));
    OperationResult r = f.charges(b -> b).call("charge:814", CHARGE);

    assertThat(r.state()).isEqualTo(OperationState.PENDING);
    assertThat(r.error()).contains("not sent", "127.0.0.1:" + closedPort, "did not accept");
  }

  @Test
  void aProviderUrlThatAcceptsButNeverAnswersLeavesTheOperationUnknown() throws Exception {
    f = new HttpOperations(SimulatorConfig.defaults());
    try (ServerSocket silent = new ServerSocket(0)) {
      f.client =
          new ProviderClient(
              URI.create("http://127.0.0.1:" + silent.getLocalPort()), Duration.ofMillis(500));
      OperationResult r = f.charges(b -> b.lookup(ProviderLookup.NONE)).call("charge:814", CHARGE);

      assertThat(r.state()).isEqualTo(OperationState.UNKNOWN);
      assertThat(r.error()).contains("no answer", "timed out");
    }
  }

  static <T> List<T> eight(java.util.concurrent.Callable<T> work) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<T>> fs = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        fs.add(
            pool.submit(
                () -> {
                  go.await();
                  return work.call();
                }));
      }
      go.countDown();
      List<T> out = new ArrayList<>();
      for (Future<T> fu : fs) {
        out.add(fu.get());
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }
}
