package dev.once.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.once.scenario.simulator.Fault;
import dev.once.scenario.simulator.Ledger;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The demo's verdict reads the providers' ledgers: one charge per order is required, a duplicated
 * e-mail is reported but allowed (the relay cannot deduplicate), a missing e-mail or an operation
 * left uncertain fails the run.
 */
class WarehouseVerdictTest {
  private static final ObjectMapper json = new ObjectMapper();
  private static final long ORDERS = 3;

  @Test
  void oneChargeAndOneEmailPerOrderPasses() {
    assertThat(verdict(ledgerWithEveryOrder(), 0).problems()).isEmpty();
  }

  @Test
  void anOrderChargedTwiceFailsTheRun() {
    Ledger ledger = ledgerWithEveryOrder();
    charge(ledger, 2);
    ProviderCounts counts = ProviderCounts.from(ledger, Map.of(), ORDERS, id -> false);
    assertThat(counts.ordersChargedTwice()).isEqualTo(1);
    assertThat(verdict(ledger, 0).problems())
        .singleElement()
        .asString()
        .contains("4 charges at the payment provider for 3 orders (1 orders charged twice");
  }

  @Test
  void anOrderNeverChargedFailsTheRun() {
    Ledger ledger = new Ledger(null);
    charge(ledger, 1);
    charge(ledger, 3);
    for (long order = 1; order <= ORDERS; order++) {
      email(ledger, order);
    }
    assertThat(ProviderCounts.from(ledger, Map.of(), ORDERS, id -> false).ordersNotCharged())
        .isEqualTo(1);
    assertThat(verdict(ledger, 0).ok()).isFalse();
  }

  @Test
  void aDuplicatedEmailIsCountedButAllowed() {
    Ledger ledger = ledgerWithEveryOrder();
    email(ledger, 3);
    ProviderCounts counts =
        ProviderCounts.from(ledger, Map.of(Fault.DROP_RESPONSE, 1L), ORDERS, id -> false);
    assertThat(counts.emailsSent()).isEqualTo(4);
    assertThat(counts.emailsDuplicated()).isEqualTo(1);
    assertThat(counts.answersLost()).isEqualTo(1);
    assertThat(verdict(ledger, 0).problems()).isEmpty();
  }

  @Test
  void anOrderWithoutEmailOrAnUncertainOperationFailsTheRun() {
    Ledger ledger = new Ledger(null);
    for (long order = 1; order <= ORDERS; order++) {
      charge(ledger, order);
    }
    email(ledger, 1);
    email(ledger, 2);
    assertThat(verdict(ledger, 1).problems())
        .hasSize(2)
        .anySatisfy(p -> assertThat(p).contains("1 orders without an e-mail"))
        .anySatisfy(p -> assertThat(p).contains("1 operations whose outcome is not known"));
  }

  @Test
  void deadLettersOfForeignMalformedMessagesAreNoProblemOfTheOrdersButOthersAre() {
    // 5 dead letters, all of malformed messages that are none of the demo's events
    WarehouseVerdict foreign = withDeadLetters(5, 5);
    // 5 dead letters, 2 of them of events that are neither poison nor malformed foreign ones
    WarehouseVerdict other = withDeadLetters(5, 3);

    assertThat(foreign.problems()).isEmpty();
    assertThat(other.problems()).containsExactly("2 dead letters of events that are not poison");
  }

  private static WarehouseVerdict withDeadLetters(long deadLetters, long foreignMalformed) {
    WarehouseVerdict.Counts counts =
        new WarehouseVerdict.Counts(
            ORDERS,
            0,
            deadLetters,
            0,
            foreignMalformed,
            0,
            ORDERS,
            ORDERS,
            0,
            0,
            ORDERS,
            ORDERS,
            0,
            0,
            0,
            0,
            0);
    return new WarehouseVerdict(ORDERS, counts, null, List.of(), 0);
  }

  private static WarehouseVerdict verdict(Ledger ledger, long unknownLeft) {
    WarehouseVerdict.Counts counts =
        new WarehouseVerdict.Counts(
            ORDERS, 0, 0, 0, 0, 0, ORDERS, ORDERS, 0, 0, ORDERS, ORDERS, 0, 0, 0, 0, unknownLeft);
    return new WarehouseVerdict(
        ORDERS, counts, ProviderCounts.from(ledger, Map.of(), ORDERS, id -> false), List.of(), 0);
  }

  private static Ledger ledgerWithEveryOrder() {
    Ledger ledger = new Ledger(null);
    for (long order = 1; order <= ORDERS; order++) {
      charge(ledger, order);
      email(ledger, order);
    }
    return ledger;
  }

  private static void charge(Ledger ledger, long order) {
    ObjectNode request = json.createObjectNode().put("reference", "charge:" + order);
    ledger.perform("charges", "key-" + order, "charge:" + order, request.put("order", order));
  }

  private static void email(Ledger ledger, long order) {
    String reference = "email:dispatch-queued:warehouse/order-paid:" + order;
    ObjectNode request = json.createObjectNode().put("reference", reference);
    ledger.perform("emails", null, reference, request.put("order", order));
  }
}
