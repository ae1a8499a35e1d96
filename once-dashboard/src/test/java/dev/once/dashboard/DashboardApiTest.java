package dev.once.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.once.Consumer;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DashboardApiTest {
  private Rig rig;
  private Client client;

  private void start(boolean readOnly, int deadLetters) {
    rig = new Rig(b -> b.readOnly(readOnly));
    rig.seedDeadLetters(deadLetters);
    client = new Client(rig.url());
  }

  @AfterEach
  void close() {
    if (rig != null) {
      rig.close();
    }
  }

  @Test
  void thePageAndItsScriptsAreServedFromTheClasspathAndTheWebJar() throws Exception {
    start(false, 0);
    var http = java.net.http.HttpClient.newHttpClient();
    for (String path : List.of("", "app.js", "app.css", "vendor/uPlot.iife.min.js")) {
      var r =
          http.send(
              java.net.http.HttpRequest.newBuilder(java.net.URI.create(rig.url() + path)).build(),
              java.net.http.HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(path).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Security-Policy")).isPresent();
    }
    assertThat(client.get("nope.html").status()).isEqualTo(404);
  }

  @Test
  void everyReadEndpointAnswersJson() {
    start(false, 30);
    rig.db.execute(
        """
        INSERT INTO once_operation (operation_id, provider, idempotency_key, fingerprint, request,
                                    state, created_at, updated_at, resolution)
        VALUES ('charge:1', 'psp', 'k-1', 'f', 'r', 'UNKNOWN', now() - interval '5 minutes', now(),
                'asked the provider: no answer'),
               ('charge:2', 'psp', 'k-2', 'f', 'r', 'SUCCEEDED', now(), now(), null)
        """);
    rig.dashboard.sampleNow();

    assertThat(client.get("api/config").json().get("read_only").asBoolean()).isFalse();

    JsonNode overview = client.get("api/overview").json();
    assertThat(overview.get("dead_letters_open").asLong()).isEqualTo(30);
    assertThat(overview.get("consumers").get(0).get("consumer").asText()).isEqualTo("warehouse");
    assertThat(overview.get("consumers").get(0).get("dead_open").asLong()).isEqualTo(30);
    assertThat(overview.get("operations").toString()).contains("\"UNKNOWN\"", "\"uncertain\":true");

    JsonNode series = client.get("api/series?minutes=5").json();
    assertThat(series.get("at").size()).isPositive();
    assertThat(series.get("consumers").get("warehouse").get("oldest_seconds")).isNotNull();

    JsonNode groups = client.get("api/dead-letters/groups").json().get("groups");
    assertThat(groups.size()).isEqualTo(2);
    assertThat(groups.get(0).get("fingerprint").asText()).isEqualTo("fp-a");
    assertThat(groups.get(0).get("count").asLong()).isEqualTo(27);
    assertThat(groups.get(1).get("count").asLong()).isEqualTo(3);

    JsonNode page = client.get("api/dead-letters?limit=10").json();
    assertThat(page.get("items").size()).isEqualTo(10);
    assertThat(page.get("items").get(0).get("id").asLong()).as("newest first").isEqualTo(30);
    assertThat(page.get("next_before").asLong()).isEqualTo(21);

    assertThat(client.get("api/dead-letters/count?fingerprint=fp-b").json().get("count").asLong())
        .isEqualTo(3);

    JsonNode detail = client.get("api/dead-letters/7").json();
    assertThat(detail.get("event_id").asText()).isEqualTo("order-paid:7");
    assertThat(detail.get("payload").get("size").asInt()).isEqualTo(36);
    assertThat(detail.get("payload").get("shape").toString())
        .isEqualTo("{\"orderId\":\"string\",\"amount\":\"number\"}");
    assertThat(detail.toString()).as("no payload value in the detail").doesNotContain("secret-7");

    JsonNode ops = client.get("api/operations").json();
    assertThat(ops.get("uncertain").size()).isEqualTo(1);
    assertThat(ops.get("uncertain").get(0).get("resolution").asText())
        .isEqualTo("asked the provider: no answer");
    assertThat(ops.get("uncertain").get(0).get("age_seconds").asDouble()).isGreaterThan(290);
  }

  /** Two keys parked behind dead letters 1 and 2 an hour ago, three events behind one of them. */
  @Test
  void theOverviewShowsParkedKeysPerConsumer() {
    start(false, 2);
    rig.db.execute(
        """
        INSERT INTO once_parked_key
               (consumer_group, destination, event_key, event_id, head_id, parked_at)
        VALUES ('warehouse', 'orders', '1', 'order-paid:1', 1, now() - interval '1 hour'),
               ('warehouse', 'orders', '2', 'order-paid:2', 2, now() - interval '1 minute')
        """);
    rig.db.execute(
        """
        INSERT INTO once_queue (consumer_group, event_id, destination, event_key, event_type,
                                payload, enqueued_at, visible_at, in_key_order)
        SELECT 'warehouse', 'order-paid:1:' || g, 'orders', '1', 'OrderPaid', '\\x7b7d',
               now(), now(), true
          FROM generate_series(1, 3) g
        """);
    rig.dashboard.sampleNow();

    JsonNode keys = client.get("api/overview").json().get("parked_keys");
    assertThat(keys.size()).isEqualTo(1);
    assertThat(keys.get(0).get("consumer").asText()).isEqualTo("warehouse");
    assertThat(keys.get(0).get("parked").asLong()).isEqualTo(2);
    assertThat(keys.get(0).get("waiting").asLong()).isEqualTo(3);
    assertThat(keys.get(0).get("oldest_seconds").asDouble()).isBetween(3590.0, 3900.0);
  }

  @Test
  void theOverviewSaysNullForBrokerDeadLettersWhereTheTransportCannotTell() {
    rig =
        new Rig(
            (r, b) ->
                b.transport(r.transport, java.util.Map.of("warehouse", "orders", "billing", "x")));
    rig.seedDeadLetters(2);
    client = new Client(rig.url());
    rig.dashboard.sampleNow();

    JsonNode warehouse = client.get("api/overview").json().get("consumers").get(0);
    assertThat(warehouse.get("consumer").asText()).isEqualTo("warehouse");
    assertThat(warehouse.get("dead_open").asLong()).isEqualTo(2);
    assertThat(warehouse.has("broker_dead_letters")).isTrue();
    assertThat(warehouse.get("broker_dead_letters").isNull())
        .as("the table queue has no dead letters of its own")
        .isTrue();
  }

  @Test
  void keysetPagesWalkEveryDeadLetterOnceWithoutOffset() {
    start(false, 125);
    List<Long> seen = new ArrayList<>();
    String next = "";
    do {
      JsonNode page = client.get("api/dead-letters?limit=50" + next).json();
      page.get("items").forEach(i -> seen.add(i.get("id").asLong()));
      next = page.get("next_before").isNull() ? null : "&before=" + page.get("next_before");
    } while (next != null);
    assertThat(seen).hasSize(125).doesNotHaveDuplicates();
    assertThat(seen).isSortedAccordingTo((a, b) -> Long.compare(b, a));
  }

  @Test
  void badParametersAreA400NamingTheParameterAndValue() {
    start(false, 1);
    assertBad("api/dead-letters?status=bogus", "status must be one of dead, replayed");
    assertBad("api/dead-letters?limit=0", "limit must be between 1 and 500, was 0");
    assertBad("api/dead-letters?limit=ten", "limit must be a whole number, was 'ten'");
    assertBad("api/dead-letters?before=-3", "before must be a positive id, was -3");
    assertBad("api/dead-letters?sort=id", "unknown parameter 'sort'");
    assertBad("api/dead-letters/abc", "id must be a whole number, was 'abc'");
    assertBad("api/series?minutes=999", "minutes must be between 1 and 15, was 999");
    assertBad("api/dead-letters/groups?limit=5000", "limit must be between 1 and 1000");
    assertBad("api/operations?limit=x", "limit must be a whole number");
    assertThat(client.get("api/dead-letters/999").status()).isEqualTo(404);
    assertThat(client.get("api/nothing").status()).isEqualTo(404);

    assertBadPost("{", "the body is not valid JSON");
    assertBadPost("[1]", "the body must be a JSON object");
    assertBadPost("{\"ids\":[]}", "ids must be a list of 1 to 500 dead-letter ids");
    assertBadPost("{\"ids\":[\"1\"]}", "ids must hold positive whole numbers");
    assertBadPost("{\"ids\":[1],\"group\":{}}", "give exactly one of 'ids'");
    assertBadPost("{\"ids\":[1],\"why\":\"x\"}", "unknown field 'why'");
    assertBadPost(
        "{\"group\":{\"consumer\":\"warehouse\",\"type\":\"OrderPaid\"},\"expected\":1}",
        "group.fingerprint is required");
    assertBadPost(
        "{\"group\":{\"consumer\":\"warehouse\",\"type\":\"OrderPaid\",\"fingerprint\":\"fp-a\"}}",
        "expected must be the count the confirmation showed");
    assertThat(rig.db.count("SELECT count(*) FROM once_dead_letter WHERE status = 'dead'"))
        .isEqualTo(1);
  }

  private void assertBad(String path, String message) {
    Client.Answer a = client.get(path);
    assertThat(a.status()).as(path).isEqualTo(400);
    assertThat(a.error()).as(path).contains(message);
  }

  private void assertBadPost(String body, String message) {
    Client.Answer a = client.post("api/dead-letters/replay", body);
    assertThat(a.status()).as(body).isEqualTo(400);
    assertThat(a.error()).as(body).contains(message);
  }

  @Test
  void actionsWithoutTheTokenOrFromAnotherOriginAreA403AndChangeNothing() {
    start(false, 3);
    String body = "{\"ids\":[1,2,3]}";
    Client.Answer none = client.post("api/dead-letters/discard", body, null, null);
    assertThat(none.status()).isEqualTo(403);
    assertThat(none.error()).contains("missing X-Once-Token");
    Client.Answer wrong = client.post("api/dead-letters/discard", body, "x".repeat(26), null);
    assertThat(wrong.status()).isEqualTo(403);
    assertThat(wrong.error()).contains("wrong X-Once-Token");
    Client.Answer foreign =
        client.post("api/dead-letters/discard", body, Rig.TOKEN, "http://evil.example");
    assertThat(foreign.status()).isEqualTo(403);
    assertThat(foreign.error()).contains("cross-origin request refused");
    Client.Answer reveal = client.post("api/dead-letters/1/payload", "{}", null, null);
    assertThat(reveal.status()).isEqualTo(403);
    assertThat(rig.db.count("SELECT count(*) FROM once_dead_letter WHERE status = 'dead'"))
        .isEqualTo(3);
    assertThat(rig.db.count("SELECT count(*) FROM once_dead_letter_action")).isZero();

    String own = rig.url().substring(0, rig.url().length() - 1);
    Client.Answer same = client.post("api/dead-letters/discard", body, Rig.TOKEN, own);
    assertThat(same.status()).isEqualTo(200);
    assertThat(same.json().get("done").asInt()).isEqualTo(3);
  }

  @Test
  void aRequestForAnotherHostNameIsRefusedSoDnsRebindingCannotReadIt() throws Exception {
    start(false, 1);
    try (Socket s = new Socket("127.0.0.1", rig.dashboard.port())) {
      OutputStream out = s.getOutputStream();
      out.write(
          ("GET /api/overview HTTP/1.1\r\nHost: attacker.example:"
                  + rig.dashboard.port()
                  + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertThat(answer).startsWith("HTTP/1.1 403").contains("is not this dashboard's");
    }
  }

  @Test
  void readOnlyRefusesEveryActionAndSaysSo() {
    start(true, 2);
    assertThat(client.get("api/config").json().get("read_only").asBoolean()).isTrue();
    for (String path :
        List.of(
            "api/dead-letters/replay", "api/dead-letters/discard", "api/dead-letters/1/payload")) {
      Client.Answer a = client.post(path, "{\"ids\":[1,2]}");
      assertThat(a.status()).as(path).isEqualTo(403);
      assertThat(a.error()).contains("read-only");
    }
    assertThat(rig.db.count("SELECT count(*) FROM once_dead_letter WHERE status = 'dead'"))
        .isEqualTo(2);
  }

  @Test
  void revealingAPayloadIsAnActionThatNeedsTheTokenAndIsLoggedWithoutTheValue() {
    start(false, 2);
    PrintStream err = System.err;
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
    Client.Answer a;
    try {
      a = client.post("api/dead-letters/1/payload", "{}");
      client.post("api/dead-letters/discard", "{\"ids\":[2],\"reason\":\"x\"}");
    } finally {
      System.setErr(err);
    }
    assertThat(a.status()).isEqualTo(200);
    assertThat(a.json().get("payload").get("text").asText())
        .isEqualTo("{\"orderId\":\"secret-1\",\"amount\":12.5}");
    assertThat(log.toString(StandardCharsets.UTF_8))
        .contains("payload of dead letter 1 revealed", "discard of 1 dead letters")
        .doesNotContain("secret-");
  }

  @Test
  void aGroupActionActsOnlyOnTheCountTheOperatorConfirmed() {
    start(false, 20);
    String group =
        "{\"group\":{\"consumer\":\"warehouse\",\"type\":\"OrderPaid\",\"fingerprint\":\"fp-b\"},"
            + "\"expected\":%d,\"reason\":\"obsolete\"}";
    Client.Answer stale = client.post("api/dead-letters/discard", group.formatted(5));
    assertThat(stale.status()).isEqualTo(409);
    assertThat(stale.error()).contains("now holds 2 open dead letters, not 5");

    Client.Answer ok = client.post("api/dead-letters/discard", group.formatted(2));
    assertThat(ok.json().get("done").asInt()).isEqualTo(2);
    assertThat(rig.db.count("SELECT count(*) FROM once_dead_letter WHERE status = 'discarded'"))
        .isEqualTo(2);
    assertThat(
            rig.db.count(
                "SELECT count(*) FROM once_dead_letter_action"
                    + " WHERE action = 'discard' AND reason = 'obsolete' AND actor = 'dashboard'"))
        .isEqualTo(2);
  }

  @Test
  void aReplayThroughTheApiIsProcessedOnceWithItsEventId() throws Exception {
    start(false, 0);
    rig.db.execute("CREATE TABLE effects (event_id text)");
    java.util.concurrent.atomic.AtomicBoolean broken =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    try (Consumer c =
        rig.consumer(
            "warehouse",
            2,
            (tx, e) -> {
              if (broken.get()) {
                throw new IllegalStateException("cannot ship");
              }
              tx.update("INSERT INTO effects VALUES (?)", e.id().value());
            })) {
      rig.startRelay();
      c.start();
      rig.publish(1, "{\"orderId\":\"o-1\"}");
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> rig.db.count("SELECT count(*) FROM once_dead_letter") == 1);
      long id = rig.db.count("SELECT id FROM once_dead_letter");
      broken.set(false);
      Client.Answer a = client.post("api/dead-letters/replay", "{\"ids\":[" + id + "]}");
      assertThat(a.json().get("done").asInt()).isEqualTo(1);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> rig.db.count("SELECT count(*) FROM effects") == 1);
      assertThat(
              client
                  .post("api/dead-letters/replay", "{\"ids\":[" + id + "]}")
                  .json()
                  .get("done")
                  .asInt())
          .as("a second replay of a resolved dead letter does nothing")
          .isZero();
      assertThat(rig.db.count("SELECT count(*) FROM effects WHERE event_id = 'order-paid:1'"))
          .isEqualTo(1);
    }
  }

  @Test
  void withoutTheListenerRatesAreReadFromTheRowsConsumersLeaveAndDuplicatesAreUnknown()
      throws Exception {
    rig = new Rig(b -> b.listener(new DashboardListener())); // not the one Once reports to
    client = new Client(rig.url());
    rig.db.execute("CREATE TABLE effects (event_id text)");
    try (Consumer c =
        rig.consumer(
            "warehouse",
            2,
            (tx, e) -> {
              if (e.event().key().equals("3")) {
                throw new IllegalStateException("poison");
              }
              tx.update("INSERT INTO effects VALUES (?)", e.id().value());
            })) {
      rig.startRelay();
      c.start();
      for (long id = 1; id <= 40; id++) {
        rig.publish(id, "{}");
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> rig.db.count("SELECT count(*) FROM effects") == 39);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                JsonNode rates =
                    client
                        .get("api/overview")
                        .json()
                        .path("consumers")
                        .path(0) // absent until the first sample sees the consumer
                        .path("rates_per_second");
                return rates.path("completion").asDouble() * 30 >= 38
                    && rates.path("dead").asDouble() > 0;
              });
      JsonNode overview = client.get("api/overview").json();
      assertThat(overview.get("rate_source").asText()).isEqualTo("database");
      JsonNode rates = overview.get("consumers").get(0).get("rates_per_second");
      assertThat(rates.get("duplicate").isNull()).as("a duplicate leaves no row").isTrue();
      assertThat(rates.get("arrival").asDouble()).isPositive();
    }
  }
}
