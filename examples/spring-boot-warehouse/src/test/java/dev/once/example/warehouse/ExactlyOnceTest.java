package dev.once.example.warehouse;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.Event;
import dev.once.EventId;
import dev.once.Handler;
import dev.once.spring.OnceHandlers;
import dev.once.spring.SpringTransactions;
import dev.once.testkit.HandlerKit;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * The application's own {@code @OnceHandler}, its JPA repository and its transaction manager,
 * driven by the testkit through every consumer crash window and eight concurrent deliveries of one
 * event: exactly one dispatch job and one marker each time.
 */
class ExactlyOnceTest extends WarehouseTest {
  private static final String JOBS = "SELECT count(*) FROM dispatch_jobs WHERE event_id = ?";

  @Autowired OnceHandlers handlers;
  @Autowired SpringTransactions transactions;

  private HandlerKit kit(Handler handler, String consumer, String destination) {
    return HandlerKit.of(dataSource, consumer, handler)
        .events(n -> orderPaid(n, destination))
        .effects(JOBS)
        .destinations("dispatch")
        .concurrency(8)
        .redeliveryWait(Duration.ofSeconds(5));
  }

  static Event orderPaid(long n, String destination) {
    return new Event(
        EventId.of("order-paid", n),
        destination,
        Long.toString(n),
        "OrderPaid",
        ("{\"orderId\":" + n + ",\"amountCents\":1999}").getBytes(),
        Map.of("content-type", "application/json"));
  }

  @Test
  void theDispatchHandlerHasOneEffectThroughEveryCrashWindowAndEightConcurrentDeliveries() {
    Handler dispatch = handlers.handler("warehouse", "orders");
    assertThatCode(
            () -> kit(dispatch, "kit-warehouse", "kit-orders").transactions(transactions).verify())
        .doesNotThrowAnyException();
  }

  @Test
  void theKitCatchesAHandlerWhoseWriteGoesThroughASecondDataSource() {
    Handler broken = handlers.handler("kit-broken", "kit-broken-orders");
    assertThatThrownBy(
            () ->
                kit(broken, "kit-broken", "kit-broken-orders")
                    .transactions(transactions)
                    .verifyCrashWindows())
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("crash at consumer.after-effect-before-commit")
        .hasMessageContaining("has 2 effects");
  }

  @Test
  void theKitCatchesTheSameHandlerWhenOnceDoesNotRunItInSpringsTransaction() {
    // Once's own connection instead of Spring's transaction: the repository commits on its own
    Handler dispatch = handlers.handler("warehouse", "orders");
    assertThatThrownBy(
            () ->
                kit(dispatch, "kit-plain", "kit-plain-orders")
                    .redeliveryWait(Duration.ofSeconds(2))
                    .verifyCrashWindows())
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("is not exactly-once");
  }
}
