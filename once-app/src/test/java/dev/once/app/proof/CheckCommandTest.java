package dev.once.app.proof;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.once.scenario.WarehouseTables;
import dev.once.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code once check} on hand-made data: it names the orders that are not exactly once. */
class CheckCommandTest {
  private TestDatabase db;
  private String url;

  @BeforeEach
  void open() {
    db = TestDatabase.embedded();
    url = TestDatabase.embeddedUrl() + "&currentSchema=" + db.schema();
    WarehouseTables.create(db.dataSource());
    for (int order = 1; order <= 3; order++) {
      processed(order);
    }
  }

  @AfterEach
  void close() {
    db.close();
  }

  /** What a correct run leaves for one order: the order, both effects, both markers. */
  private void processed(int order) {
    db.execute("INSERT INTO demo_orders (order_id, amount_cents) VALUES (" + order + ", 100)");
    dispatchJob(order);
    db.execute(
        "INSERT INTO demo_notifications (order_id, event_id) VALUES ("
            + order
            + ", 'dispatch-queued:warehouse/order-paid:"
            + order
            + "')");
    db.execute(
        "INSERT INTO once_inbox (consumer_id, event_id) VALUES ('warehouse', 'order-paid:"
            + order
            + "'), ('notifier', 'dispatch-queued:warehouse/order-paid:"
            + order
            + "')");
  }

  private void dispatchJob(int order) {
    db.execute(
        "INSERT INTO demo_dispatch_jobs (order_id, event_id) VALUES ("
            + order
            + ", 'order-paid:"
            + order
            + "')");
  }

  @Test
  void deadLettersOfForeignMalformedMessagesAreReportedApartAndEveryOrderIsStillOk() {
    for (int i = 1; i <= 5; i++) { // what a consumer of the demo's queue makes of foreign bytes
      db.execute(
          "INSERT INTO once_dead_letter (consumer_id, event_id, destination, event_key, event_type,"
              + " payload, attempts, first_failed_at, last_failed_at, error_class,"
              + " error_fingerprint, error_message, final_attempt_crashed) VALUES ('warehouse',"
              + " 'malformed:"
              + i
              + "', 'orders', 'k', 'unknown', convert_to('not json', 'UTF8'), 1, now(), now(),"
              + " 'dev.once.MalformedMessage', 'm1', 'no event id header', false)");
    }

    Run run = Run.of("check", "--db", url, "--schema", db.schema());

    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out())
        .contains("verdict                OK")
        .containsPattern("foreign messages +5 malformed messages dead-lettered")
        .contains("once dead-letters list --schema NAME (error MalformedMessage)")
        .doesNotContain("not poison");
  }

  @Test
  void dataWhereEveryOrderWasProcessedOncePassesWithExitCodeZero() {
    Run run = Run.of("check", "--db", url, "--schema", db.schema());
    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.out()).contains("OK: every order processed exactly once");
  }

  @Test
  void aDoubledEffectFailsAndNamesTheOrder() {
    dispatchJob(2);
    Run run = Run.of("check", "--db", url, "--schema", db.schema());
    assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
    assertThat(run.out())
        .contains("1 duplicate effects")
        .contains("order 2: 2 dispatch jobs, 1 notifications")
        .doesNotContain("order 1:")
        .doesNotContain("order 3:");
  }

  @Test
  void aMissingEffectFailsAndNamesTheOrder() {
    db.execute("DELETE FROM demo_notifications WHERE order_id = 3");
    db.execute("DELETE FROM once_inbox WHERE consumer_id = 'notifier' AND event_id LIKE '%:3'");
    Run run = Run.of("check", "--db", url, "--schema", db.schema());
    assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
    assertThat(run.out())
        .contains("1 orders without a dispatch job or a notification")
        .contains("order 3: 1 dispatch jobs, 0 notifications, markers warehouse 1 notifier 0");
  }

  @Test
  void theJsonReportCountsDuplicatesLostAndPendingAndListsTheBadOrders() throws Exception {
    dispatchJob(1);
    db.execute("DELETE FROM demo_dispatch_jobs WHERE order_id = 2");
    db.execute(
        "INSERT INTO once_outbox (event_id, destination, event_key, event_type, payload,"
            + " key_partition) VALUES ('order-paid:3', 'orders', '3', 'OrderPaid', '', 0)");
    Run run = Run.of("check", "--db", url, "--schema", db.schema(), "--json", "--wait", "1");
    assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
    JsonNode json = new ObjectMapper().readTree(run.out());
    assertThat(json.get("ok").asBoolean()).isFalse();
    assertThat(json.get("orders").asLong()).isEqualTo(3);
    assertThat(json.get("duplicate_effects").asLong()).isEqualTo(1);
    assertThat(json.get("lost").asLong()).isEqualTo(1);
    assertThat(json.get("pending").asLong()).isEqualTo(1);
    assertThat(json.get("bad_orders").findValuesAsText("order_id")).containsExactly("1", "2", "3");
  }
}
