package dev.once.app.proof;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/**
 * {@code once verify} on small numbers with the embedded PostgreSQL (which it starts itself and
 * shares with the worker processes) and the table queue.
 */
class VerifyCommandTest {

  @Test
  void twoWorkerProcessesKilledTenTimesProcessEveryOrderExactlyOnce() throws Exception {
    // a namespace of its own: every child (workers and producer) must use it, not the default;
    // a producer that wrote into the default namespace left the check 0 orders to find
    Run run =
        Run.of(
            "verify",
            "--workers",
            "2",
            "--events",
            "500",
            "--kills",
            "10",
            "--schema",
            "verify_embedded",
            "--json");
    assertThat(run.exitCode()).as(run.toString()).isZero();
    JsonNode json = new ObjectMapper().readTree(run.out());
    assertVerified(json, 500, 10);
  }

  /**
   * verify can fail: workers that acknowledge on receipt lose the orders they die with. Three kills
   * run the first three phases (producer, SIGKILL, before the transaction): a worker halted after
   * it took a batch, before its transaction, loses that batch; the later windows are not needed to
   * show a loss. Once the table queue is drained the verdict cannot change: verify fails then, not
   * at the timeout.
   */
  @Test
  void verifyFailsWhenTheWorkersAcknowledgeBeforeTheirTransactionCommits() throws Exception {
    Run run =
        Run.of(
            "verify",
            "--workers",
            "2",
            "--events",
            "300",
            "--kills",
            "3",
            "--timeout",
            "10",
            "--early-ack",
            "--json");
    assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
    JsonNode json = new ObjectMapper().readTree(run.out());
    assertThat(json.get("ok").asBoolean()).isFalse();
    assertThat(json.get("lost").asLong()).as(json.toPrettyString()).isPositive();
    assertThat(json.get("check").get("bad_orders").size()).isPositive();
  }

  static void assertVerified(JsonNode json, int events, int kills) {
    assertThat(json.get("ok").asBoolean()).as(json.toPrettyString()).isTrue();
    assertThat(json.get("events").asLong()).isEqualTo(events);
    assertThat(json.get("kills").asLong()).isEqualTo(kills);
    assertThat(json.get("duplicate_effects").asLong()).isZero();
    assertThat(json.get("lost").asLong()).isZero();
    assertThat(json.get("check").get("markers").get("warehouse").asLong()).isEqualTo(events);
    assertThat(json.get("check").get("markers").get("notifier").asLong()).isEqualTo(events);
    long halted =
        json.get("windows").properties().stream()
            .filter(w -> !w.getKey().equals("sigkill"))
            .mapToLong(w -> w.getValue().get("kills").asLong())
            .sum();
    assertThat(halted).as("children that halted themselves at a window").isPositive();
    assertThat(json.get("unexpected_exits").size()).as("unexpected exits").isZero();
  }
}
