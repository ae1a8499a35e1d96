package dev.once.app.demo;

import dev.once.Backoff;
import dev.once.Once;
import dev.once.Operations;
import dev.once.ReceivedEvent;
import dev.once.ReconcilePolicy;
import dev.once.Reconciler;
import dev.once.Tx;
import dev.once.scenario.ProviderCounts;
import dev.once.scenario.RemoteActions;
import dev.once.scenario.WarehouseTables;
import dev.once.scenario.simulator.FaultPlan;
import dev.once.scenario.simulator.ProviderClient;
import dev.once.scenario.simulator.ProviderSimulator;
import dev.once.scenario.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongPredicate;

/**
 * The demo's remote side: a Stripe-like payment provider and a mail relay without idempotency (the
 * provider simulator, over HTTP on loopback, losing a share of its answers after acting), the two
 * providers' operations, and their reconcilers. The warehouse records a charge per order and the
 * notifier an e-mail per dispatch, in their transactions; the reconcilers perform them.
 */
final class DemoOperations implements RemoteActions, AutoCloseable {
  /** A dispatch notice twice is judged better than none; stated in the report. */
  static final ReconcilePolicy MAIL_POLICY = ProviderCounts.MAIL_POLICY;

  private final FaultPlan faults;
  private final ProviderSimulator simulator;
  private final ProviderClient client;
  private final List<Reconciler> reconcilers = new ArrayList<>();
  final Operations payments;
  final Operations mail;

  /**
   * {@code lost}: the share of answers the providers drop after acting (a quarter as many 503s).
   */
  DemoOperations(Once once, double lost, long seed) {
    faults = new FaultPlan(lost, 0, 0, lost / 4, seed);
    simulator = ProviderSimulator.start(SimulatorConfig.defaults().withFaults(faults));
    client = new ProviderClient(simulator.baseUri(), Duration.ofSeconds(2));
    payments =
        once.operations(WarehouseTables.PAYMENTS)
            .idempotencyWindow(Duration.ofHours(24))
            .call(client::charge)
            .lookup(client::findCharge)
            .whenUncertain(ReconcilePolicy.PREFER_MISSED)
            .lease(Duration.ofSeconds(3))
            .backoff(Backoff.of(Duration.ofMillis(100), Duration.ofSeconds(1)))
            .reconcileInterval(Duration.ofMillis(20))
            .build();
    mail =
        once.operations(WarehouseTables.MAIL)
            .withoutIdempotency()
            .call(client::sendEmail)
            .lookup(client::findEmail)
            .whenUncertain(MAIL_POLICY)
            .lease(Duration.ofSeconds(3))
            .backoff(Backoff.of(Duration.ofMillis(100), Duration.ofSeconds(1)))
            .reconcileInterval(Duration.ofMillis(20))
            .build();
  }

  void start(int workers) {
    for (int i = 0; i < workers; i++) {
      reconcilers.add(payments.newReconciler().start());
      reconcilers.add(mail.newReconciler().start());
    }
  }

  static String chargeRequest(long orderId, int amountCents) {
    return "{\"reference\":\"charge:"
        + orderId
        + "\",\"order\":"
        + orderId
        + ",\"amount\":"
        + amountCents
        + ",\"currency\":\"eur\"}";
  }

  static String emailRequest(String operationId, long orderId) {
    return "{\"reference\":\""
        + operationId
        + "\",\"order\":"
        + orderId
        + ",\"to\":\"customer-"
        + orderId
        + "@example.org\",\"subject\":\"Your order is on its way\"}";
  }

  /**
   * Warehouse handler: records the order's charge in the handler's transaction. The id comes from
   * the order, so every redelivery of its OrderPaid names the same operation (and key).
   */
  @Override
  public void recordCharge(Tx tx, long orderId) {
    payments.request(
        tx, "charge:" + orderId, chargeRequest(orderId, WarehouseTables.amountCents(orderId)));
  }

  /**
   * Notifier handler: records the dispatch e-mail, its id derived from the DispatchQueued event.
   */
  @Override
  public void recordEmail(Tx tx, ReceivedEvent event, long orderId) {
    String operationId = "email:" + event.id().value();
    mail.request(tx, operationId, emailRequest(operationId, orderId));
  }

  /**
   * The providers' own counts (their ledger), the ground truth of the run, for orders 1..events.
   */
  ProviderCounts counts(long events, LongPredicate poison) {
    return ProviderCounts.from(simulator.ledger(), faults.drawn(), events, poison);
  }

  /** Stops the reconcilers, so the providers' ledgers stop changing; the simulator stays up. */
  void stopWorkers() {
    reconcilers.forEach(Reconciler::close);
  }

  @Override
  public void close() {
    stopWorkers();
    simulator.close();
  }
}
