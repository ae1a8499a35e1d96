package dev.once.example.warehouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.spi.Transport;
import dev.once.spring.NoTransactionException;
import dev.once.spring.OncePublisher;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Publishing in the caller's transaction: the order and its {@code OrderPaid} commit together or
 * not at all, on every kind of Spring transaction manager, and never without a transaction.
 */
class PublishingTest extends WarehouseTest {
  private static final AtomicLong ORDER = new AtomicLong(System.currentTimeMillis() + 1_000_000);

  @LocalServerPort int port;
  @Autowired OncePublisher publisher;
  @Autowired PlatformTransactionManager jpa;
  @Autowired Transport transport;
  @Autowired OrderRepository orders;

  private long orders(long id) {
    return count("SELECT count(*) FROM orders WHERE id = ?", id);
  }

  private long outbox(String eventId) {
    return count("SELECT count(*) FROM once_outbox WHERE event_id = ?", eventId);
  }

  private HttpResponse<String> post(long id, long amountCents) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
            .header("Content-Type", "application/json")
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"id\":" + id + ",\"amountCents\":" + amountCents + "}"))
            .build();
    return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aPaidOrderBecomesOneDispatchJobAndADispatchQueuedEvent() throws Exception {
    long id = ORDER.incrementAndGet();
    assertThat(post(id, 1999).statusCode()).isEqualTo(201);

    String orderPaid = EventId.of("order-paid", id).value();
    String queued =
        EventId.derive("warehouse", EventId.of("order-paid", id), "dispatch-queued").value();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> count("SELECT count(*) FROM dispatch_jobs WHERE event_id = ?", orderPaid) == 1);
    await() // DispatchQueued went out, and the order-status consumer handled it
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                count("SELECT count(*) FROM orders WHERE id = ? AND status = 'DISPATCH_QUEUED'", id)
                    == 1);
    assertThat(count("SELECT count(*) FROM once_inbox WHERE event_id = ?", queued)).isEqualTo(1);
    assertThat(orders(id)).isEqualTo(1);
    assertThat(
            count(
                "SELECT count(*) FROM once_inbox WHERE consumer_id = 'warehouse' AND event_id = ?",
                orderPaid))
        .isEqualTo(1);
  }

  @Test
  void aRolledBackTransactionalMethodPublishesNothing() throws Exception {
    long id = ORDER.incrementAndGet();
    assertThat(post(id, 0).statusCode()).isEqualTo(400); // the service throws after publishing
    nothingCommittedFor(id);
  }

  @Test
  void theRollbackCheckCatchesAnEventWrittenOnAConnectionOfItsOwn() {
    // broken on purpose: Once's plain transaction commits the outbox row apart from the order
    long id = ORDER.incrementAndGet();
    try (Once plain =
        Once.builder().dataSource(dataSource).transport(transport).destinations("orders").build()) {
      assertThatThrownBy(
              () ->
                  new TransactionTemplate(jpa)
                      .executeWithoutResult(
                          s -> {
                            orders.save(new PurchaseOrder(id, 0, "PAID"));
                            plain.inTransaction(tx -> tx.publish(event(id)));
                            throw new IllegalArgumentException("amountCents must be > 0");
                          }))
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> nothingCommittedFor(id)).isInstanceOf(AssertionError.class);
  }

  private void nothingCommittedFor(long id) {
    assertThat(orders(id)).as("orders " + id).isZero();
    assertThat(outbox(EventId.of("order-paid", id).value()))
        .as("outbox rows of order " + id)
        .isZero();
  }

  @Test
  void publishingOutsideATransactionIsAClearError() {
    Event e = event(ORDER.incrementAndGet());
    assertThatThrownBy(() -> publisher.publish(e))
        .isInstanceOf(NoTransactionException.class)
        .hasMessageContaining("needs an active Spring-managed transaction")
        .hasMessageContaining(e.id().value());
    assertThat(outbox(e.id().value())).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {"jpa", "datasource", "jdbc"})
  void theEventCommitsAndRollsBackWithTheCallersTransactionOnEveryTransactionManager(String kind) {
    PlatformTransactionManager tm =
        switch (kind) {
          case "jpa" -> jpa;
          case "datasource" -> new DataSourceTransactionManager(dataSource);
          default -> new JdbcTransactionManager(dataSource);
        };
    JdbcTemplate jdbc = new JdbcTemplate(dataSource);
    LongConsumer pay =
        id -> {
          jdbc.update("INSERT INTO orders (id, amount_cents, status) VALUES (?, 1, 'PAID')", id);
          publisher.publish(event(id));
        };

    long committed = ORDER.incrementAndGet();
    new TransactionTemplate(tm).executeWithoutResult(s -> pay.accept(committed));
    assertThat(orders(committed)).isEqualTo(1);
    assertThat(outbox(EventId.of("order-paid", committed).value())).isEqualTo(1);

    long rolledBack = ORDER.incrementAndGet();
    new TransactionTemplate(tm)
        .executeWithoutResult(
            s -> {
              pay.accept(rolledBack);
              s.setRollbackOnly();
            });
    nothingCommittedFor(rolledBack);
  }

  private static Event event(long id) {
    return Event.of(
        EventId.of("order-paid", id),
        "orders",
        Long.toString(id),
        "OrderPaid",
        "{\"orderId\":" + id + ",\"amountCents\":1}");
  }
}
