package dev.once.app.demo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.once.Once;
import dev.once.Operations;
import dev.once.ReconcilePolicy;
import dev.once.Reconciler;
import dev.once.app.simulator.FaultPlan;
import dev.once.app.simulator.Ledger;
import dev.once.app.simulator.ProviderClient;
import dev.once.app.simulator.ProviderSimulator;
import dev.once.app.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The demo's remote side: a Stripe-like payment provider and a mail relay without idempotency (the
 * provider simulator, over HTTP on loopback, losing a share of its answers after acting), the two
 * providers' operations, and their reconcilers. The warehouse records a charge per order and the
 * notifier an e-mail per dispatch, in their transactions; the reconcilers perform them.
 */
final class DemoOperations implements AutoCloseable {
  /** A dispatch notice twice is judged better than none; stated in the report. */
  static final ReconcilePolicy MAIL_POLICY = ReconcilePolicy.PREFER_DUPLICATE;

  private final ProviderSimulator simulator;
  private final ProviderClient client;
  private final List<Reconciler> reconcilers = new ArrayList<>();
  final Operations payments;
  final Operations mail;

  /**
   * {@code lost}: the share of answers the providers drop after acting (a quarter as many 503s).
   */
  DemoOperations(Once once, double lost, long seed) {
    simulator =
        ProviderSimulator.start(
            SimulatorConfig.defaults().withFaults(new FaultPlan(lost, 0, 0, lost / 4, seed)));
    client = new ProviderClient(simulator.baseUri(), Duration.ofSeconds(2));
    payments =
        once.operations("payments")
            .idempotencyWindow(Duration.ofHours(24))
            .call(client::charge)
            .lookup(client::findCharge)
            .whenUncertain(ReconcilePolicy.PREFER_MISSED)
            .lease(Duration.ofSeconds(3))
            .retryDelay(Duration.ofMillis(100), Duration.ofSeconds(1))
            .reconcileInterval(Duration.ofMillis(20))
            .build();
    mail =
        once.operations("mail")
            .withoutIdempotency()
            .call(client::sendEmail)
            .lookup(client::findEmail)
            .whenUncertain(MAIL_POLICY)
            .lease(Duration.ofSeconds(3))
            .retryDelay(Duration.ofMillis(100), Duration.ofSeconds(1))
            .reconcileInterval(Duration.ofMillis(20))
            .build();
  }

  void start(int workers) {
    for (int i = 0; i < workers; i++) {
      reconcilers.add(payments.reconciler().start());
      reconcilers.add(mail.reconciler().start());
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

  /** The provider's own counts (its ledger), the ground truth of the run. */
  ProviderCounts counts(long orders) {
    Ledger ledger = simulator.ledger();
    Map<String, Long> perOrder = group(ledger.entries("charges"), r -> r.path("order").asText());
    Map<String, Long> perEmail = group(ledger.entries("emails"), r -> r.path("reference").asText());
    return new ProviderCounts(
        ledger.entries("charges").size(),
        perOrder.values().stream().filter(n -> n > 1).count(),
        orders - perOrder.size(),
        ledger.entries("emails").size(),
        perEmail.values().stream().mapToLong(n -> n - 1).sum());
  }

  private static Map<String, Long> group(
      List<Ledger.Entry> entries, Function<JsonNode, String> by) {
    return entries.stream()
        .collect(Collectors.groupingBy(e -> by.apply(e.request()), Collectors.counting()));
  }

  /** What the payment provider and the mail relay actually did. */
  record ProviderCounts(
      long charges,
      long ordersChargedTwice,
      long ordersNotCharged,
      long emailsSent,
      long emailsDuplicated) {}

  @Override
  public void close() {
    reconcilers.forEach(Reconciler::close);
    simulator.close();
  }
}
