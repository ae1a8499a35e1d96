package dev.once.example.warehouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.DeadLetter;
import dev.once.DeadLetterFilter;
import dev.once.DeadLetters;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Operations;
import dev.once.PayloadDecodingException;
import dev.once.spring.OncePublisher;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** What an {@code @OnceHandler} method is given: typed payloads, {@code Tx}, event types. */
class HandlerParametersTest extends WarehouseTest {
  private static final AtomicLong N = new AtomicLong(System.currentTimeMillis() + 3_000_000);

  @Autowired OncePublisher publisher;
  @Autowired PlatformTransactionManager transactionManager;
  @Autowired DeadLetters deadLetters;
  @Autowired TestHandlers.Prices prices;
  @Autowired TestHandlers.FakeProvider provider;
  @Autowired Operations payments;

  private void publish(Event... events) {
    new TransactionTemplate(transactionManager)
        .executeWithoutResult(
            s -> {
              for (Event e : events) {
                publisher.publish(e);
              }
            });
  }

  private long marker(String consumer, Event e) {
    return count(
        "SELECT count(*) FROM once_inbox WHERE consumer_id = ? AND event_id = ?",
        consumer,
        e.id().value());
  }

  @Test
  void aPayloadThatIsNotTheHandlersTypeIsADeadLetterAtItsFirstDelivery() {
    long n = N.incrementAndGet();
    Event garbled = Event.of(EventId.of("order-paid", n), "orders", "o" + n, "OrderPaid", "[1,2");
    publish(garbled);

    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                !deadLetters
                    .list(DeadLetterFilter.open().consumer("warehouse").event(garbled.id().value()))
                    .isEmpty());
    List<DeadLetter> dead =
        deadLetters.list(DeadLetterFilter.open().consumer("warehouse").event(garbled.id().value()));
    assertThat(dead).hasSize(1);
    assertThat(dead.get(0).attempts()).as("attempts").isEqualTo(1);
    assertThat(dead.get(0).errorClass()).isEqualTo(PayloadDecodingException.class.getName());
    assertThat(count("SELECT count(*) FROM dispatch_jobs WHERE event_id = ?", garbled.id().value()))
        .isZero();
    deadLetters.discard(
        DeadLetterFilter.open().event(garbled.id().value()), "test", "garbled on purpose");
  }

  @Test
  void aHandlerRecordsAnOperationInItsTransactionAndTheReconcilerBeanPerformsItOnce() {
    long n = N.incrementAndGet();
    publish(ExactlyOnceTest.orderPaid(n, "charge-orders"));
    String id = "charge:" + n;
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> payments.find(id).map(r -> r.succeeded()).orElse(false));
    assertThat(provider.charges.values().stream().mapToInt(Integer::intValue).sum())
        .as("charges made for " + id)
        .isEqualTo(1);
  }

  @Test
  void aHandlerGetsTheTransactionForApplyIfNewerAndOnlyTheEventTypesItNames() {
    String key = "sku-" + N.incrementAndGet();
    Event v2 = Event.of(EventId.of("price", key, 2), "prices", key, "PriceChanged", "2");
    Event v1 = Event.of(EventId.of("price", key, 1), "prices", key, "PriceChanged", "1");
    Event other = Event.of(EventId.of("price-note", key), "prices", key, "PriceNote", "99");
    publish(v2);
    await().atMost(Duration.ofSeconds(20)).until(() -> marker("prices", v2) == 1);
    publish(v1, other);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> marker("prices", v1) == 1 && marker("prices", other) == 1);

    assertThat(prices.applied)
        .as("v1 is older than v2; the note is not a PriceChanged")
        .containsExactly(key + "@2");
  }
}
