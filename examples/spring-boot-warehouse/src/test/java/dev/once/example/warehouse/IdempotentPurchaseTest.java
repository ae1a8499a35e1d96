package dev.once.example.warehouse;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

/** {@code POST /purchases} with an Idempotency-Key: a retry replays the first answer, one order. */
class IdempotentPurchaseTest extends WarehouseTest {
  @LocalServerPort int port;

  private HttpResponse<String> purchase(String key, long amountCents) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/purchases"))
            .header("Content-Type", "application/json")
            .header("X-Client-Id", "shop-frontend")
            .POST(HttpRequest.BodyPublishers.ofString("{\"amountCents\":" + amountCents + "}"));
    if (key != null) {
      b.header("Idempotency-Key", key);
    }
    return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private long ordersWithAmount(long cents) {
    return count("SELECT count(*) FROM orders WHERE amount_cents = ?", cents);
  }

  @Test
  void aRetryWithTheSameKeyGetsTheFirstAnswerAndPlacesNoSecondOrder() throws Exception {
    String key = UUID.randomUUID().toString();
    long cents = 700_000 + (System.nanoTime() % 100_000);

    HttpResponse<String> first = purchase(key, cents);
    HttpResponse<String> retry = purchase(key, cents);

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(retry.headers().firstValue("Location"))
        .isEqualTo(first.headers().firstValue("Location"));
    assertThat(ordersWithAmount(cents)).isOne();
    String orderId = first.headers().firstValue("Location").orElseThrow().replace("/orders/", "");
    assertThat(
            count("SELECT count(*) FROM once_outbox WHERE event_id = ?", "order-paid:" + orderId))
        .isOne();
  }

  @Test
  void theSameKeyForAnotherPurchaseIs422AndAMissingKeyIs400() throws Exception {
    String key = UUID.randomUUID().toString();
    long cents = 800_000 + (System.nanoTime() % 100_000);
    purchase(key, cents);

    HttpResponse<String> other = purchase(key, cents + 1);
    HttpResponse<String> none = purchase(null, cents + 2);

    assertThat(other.statusCode()).isEqualTo(422);
    assertThat(other.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(none.statusCode()).isEqualTo(400);
    assertThat(ordersWithAmount(cents + 1)).isZero();
    assertThat(ordersWithAmount(cents + 2)).isZero();
  }

  @Test
  void aPurchaseThatFailsRollsBackStoresNoKeyAndTheRetryRunsAgain() throws Exception {
    String key = UUID.randomUUID().toString();
    // amountCents 0: the service throws after its publish; nothing may commit, the key neither
    HttpResponse<String> failed = purchase(key, 0);
    HttpResponse<String> again = purchase(key, 0);

    assertThat(failed.statusCode()).isEqualTo(500);
    assertThat(again.statusCode()).as("ran again, not replayed").isEqualTo(500);
    assertThat(again.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(ordersWithAmount(0)).isZero();
    assertThat(count("SELECT count(*) FROM once_request WHERE request_key = ?", key)).isZero();
  }
}
