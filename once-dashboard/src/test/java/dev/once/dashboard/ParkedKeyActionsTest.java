package dev.once.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.RetryPolicy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A whole parked key through the dashboard: an ordered consumer dead-letters the head of key {@code
 * k1} and parks the key with the rest of its events behind it; the dead letter's detail says so,
 * and replay or discard of the key acts on the count the operator confirmed.
 */
class ParkedKeyActionsTest {
  private static final int STEPS = 5;
  private Rig rig;
  private Client client;

  @AfterEach
  void close() {
    if (rig != null) {
      rig.close();
    }
  }

  @Test
  void replayOfAParkedKeyRunsItsHeadFirstAndThenTheEventsBehindItInOrder() throws SQLException {
    AtomicBoolean poisoned = new AtomicBoolean(true);
    try (Consumer c = parkedKey(false, poisoned)) {
      long head = rig.db.count("SELECT id FROM once_dead_letter");
      JsonNode key = client.get("api/dead-letters/" + head).json().get("parked_key");
      assertThat(key.get("key").asText()).isEqualTo("k1");
      assertThat(key.get("consumer").asText()).isEqualTo("warehouse");
      assertThat(key.get("behind").asLong()).isEqualTo(STEPS - 1);

      Client.Answer stale = client.post("api/parked-keys/replay", body("k1", STEPS));
      assertThat(stale.status()).isEqualTo(409);
      assertThat(stale.error()).contains("now has 4 events behind it, not 5");
      assertThat(rig.db.count("SELECT count(*) FROM once_parked_key")).isOne();

      poisoned.set(false);
      Client.Answer ok = client.post("api/parked-keys/replay", body("k1", STEPS - 1));
      assertThat(ok.status()).isEqualTo(200);
      assertThat(ok.json().get("keys").get(0).get("key").asText()).isEqualTo("k1");
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> rig.db.count("SELECT count(*) FROM effects WHERE key = 'k1'") == STEPS);
      assertThat(steps("k1"))
          .as("the head first, then the events behind it, in publish order")
          .containsExactly("1", "2", "3", "4", "5");
      assertThat(rig.db.count("SELECT count(*) FROM once_parked_key")).isZero();
      assertThat(client.get("api/dead-letters/" + head).json().get("parked_key").isNull()).isTrue();
    }
  }

  @Test
  void discardOfAParkedKeyDeletesTheEventsBehindItAndRecordsEachInTheActionLog() {
    try (Consumer c = parkedKey(false, new AtomicBoolean(true))) {
      Client.Answer ok = client.post("api/parked-keys/discard", body("k1", STEPS - 1));
      assertThat(ok.status()).isEqualTo(200);
      assertThat(rig.db.count("SELECT count(*) FROM once_parked_key")).isZero();
      assertThat(rig.db.count("SELECT count(*) FROM once_queue WHERE event_key = 'k1'")).isZero();
      assertThat(
              rig.db.count(
                  "SELECT count(*) FROM once_dead_letter_action"
                      + " WHERE action = 'discard' AND actor = 'dashboard'"))
          .as("the head and each event behind it")
          .isEqualTo(STEPS);
      assertThat(rig.db.count("SELECT count(*) FROM effects WHERE key = 'k1'")).isZero();
    }
  }

  @Test
  void badBodiesAndAReadOnlyDashboardChangeNothing() {
    try (Consumer c = parkedKey(false, new AtomicBoolean(true))) {
      assertBad("{\"consumer\":\"warehouse\",\"expected\":4}", 400, "key is required");
      assertBad(
          "{\"consumer\":\"warehouse\",\"key\":\"k1\",\"expected\":4,\"ids\":[1]}",
          400,
          "unknown field 'ids'");
      assertBad("{\"consumer\":\"warehouse\",\"key\":\"k1\"}", 400, "expected must be");
      assertBad(body("k9", 0), 404, "consumer warehouse has no parked key k9");
      Client.Answer noToken = client.post("api/parked-keys/discard", body("k1", 4), null, null);
      assertThat(noToken.status()).isEqualTo(403);
    }
    rig.close();
    try (Consumer c = parkedKey(true, new AtomicBoolean(true))) {
      Client.Answer a = client.post("api/parked-keys/discard", body("k1", STEPS - 1));
      assertThat(a.status()).isEqualTo(403);
      assertThat(a.error()).contains("read-only");
    }
    assertThat(rig.db.count("SELECT count(*) FROM once_parked_key")).isOne();
    assertThat(rig.db.count("SELECT count(*) FROM once_queue WHERE event_key = 'k1'"))
        .isEqualTo(STEPS - 1);
  }

  private List<String> steps(String key) throws SQLException {
    List<String> steps = new ArrayList<>();
    try (Connection c = rig.db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT step FROM effects WHERE key = ? ORDER BY seq")) {
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          steps.add(rs.getString(1));
        }
      }
    }
    return steps;
  }

  private void assertBad(String body, int status, String message) {
    Client.Answer a = client.post("api/parked-keys/discard", body);
    assertThat(a.status()).as(body).isEqualTo(status);
    assertThat(a.error()).as(body).contains(message);
    assertThat(rig.db.count("SELECT count(*) FROM once_parked_key")).isOne();
  }

  private static String body(String key, long expected) {
    return "{\"consumer\":\"warehouse\",\"key\":\"" + key + "\",\"expected\":" + expected + "}";
  }

  /**
   * A rig whose ordered consumer has parked key {@code k1} behind its first step (poisoned while
   * {@code poisoned} holds), with the other steps waiting, and processed key {@code k2} alone.
   */
  private Consumer parkedKey(boolean readOnly, AtomicBoolean poisoned) {
    rig = new Rig(b -> b.readOnly(readOnly));
    client = new Client(rig.url());
    rig.db.execute("CREATE TABLE effects (seq bigserial, key text, step text)");
    Consumer c =
        rig.once
            .consumer("warehouse")
            .subscribe(
                "orders",
                (tx, e) -> {
                  if (poisoned.get() && e.id().value().equals("k1:1")) {
                    throw new IllegalStateException("cannot ship");
                  }
                  tx.update(
                      "INSERT INTO effects (key, step) VALUES (?, ?)", e.key(), e.payloadText());
                })
            .ordered()
            .retry(
                RetryPolicy.builder()
                    .maxAttempts(2)
                    .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
                    .build())
            .idleWait(Duration.ofMillis(50))
            .build();
    rig.startRelay();
    c.start();
    for (String key : List.of("k1", "k2")) {
      for (int step = 1; step <= STEPS; step++) {
        Event e = Event.of(EventId.of(key, step), "orders", key, "OrderStatus", "" + step);
        rig.once.useTransaction(tx -> tx.publish(e));
      }
    }
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                rig.db.count("SELECT count(*) FROM once_parked_key") == 1
                    && rig.db.count("SELECT count(*) FROM effects WHERE key = 'k2'") == STEPS);
    return c;
  }
}
