package dev.once;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Operations recorded inside a handler's transaction and performed after its commit. */
class OperationIntentTest {
  private static final String CHARGE = "{\"order\":\"814\",\"amount\":1250}";
  private final OperationFixture f = new OperationFixture(true);

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void anIntentRolledBackWithItsTransactionLeavesNothingToCall() {
    Operations charges = f.operations();
    assertThatThrownBy(
            () ->
                f.once.inTransaction(
                    tx -> {
                      charges.request(tx, "charge:814", CHARGE);
                      throw new IllegalStateException("handler failed");
                    }))
        .hasMessage("handler failed");

    assertThat(charges.find("charge:814")).isEmpty();
    assertThat(charges.newReconciler().runOnce()).isZero();
    assertThat(f.provider.calls()).isZero();
  }

  @Test
  void aHandlerChargesEachOrderOnceAlthoughTheEventIsDeliveredAgain() {
    Operations charges = f.operations();
    f.db.execute("CREATE TABLE dispatch (order_id text PRIMARY KEY)");
    Consumer warehouse =
        f.once
            .consumer("warehouse")
            .subscribe(
                "orders",
                (tx, event) -> {
                  tx.update("INSERT INTO dispatch VALUES (?)", event.key());
                  charges.request(tx, "charge:" + event.id(), CHARGE);
                })
            .idleWait(Duration.ofMillis(100))
            .build();
    Event paid = Event.of(EventId.of("order-paid", 814), "orders", "814", "OrderPaid", "{}");
    f.once.inTransaction(tx -> tx.publish(paid));
    f.once.newRelay().runOnce();
    f.transport.publish(java.util.List.of(paid), Duration.ofSeconds(5)); // a redelivery
    while (warehouse.runOnce() > 0) {}

    assertThat(charges.newReconciler().runOnce()).isOne();
    assertThat(charges.newReconciler().runOnce()).isZero();
    assertThat(f.db.count("SELECT count(*) FROM dispatch")).isOne();
    assertThat(charges.find("charge:order-paid:814").orElseThrow().state())
        .isEqualTo(OperationState.SUCCEEDED);
    assertThat(f.provider.performed(CHARGE)).isOne();
  }

  @Test
  void theSameIntentWithAnotherRequestIsRefused() {
    Operations charges = f.operations();
    f.once.inTransaction(tx -> charges.request(tx, "charge:814", CHARGE));
    boolean again = f.once.inTransaction(tx -> charges.request(tx, "charge:814", CHARGE));
    assertThat(again).isFalse();
    assertThatThrownBy(
            () -> f.once.inTransaction(tx -> charges.request(tx, "charge:814", "{\"amount\":1}")))
        .isInstanceOf(OperationConflictException.class)
        .hasMessageContaining("'charge:814' is stored with a different request");
  }
}
