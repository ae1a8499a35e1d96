package dev.once.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.test.TestDatabase;
import org.junit.jupiter.api.Test;

/**
 * Rows of once_queue and once_outbox that Once cannot decode (written by hand, by another service,
 * by an older version) are dead-lettered or parked alone: the rows around them are claimed,
 * published and processed, in the same batches.
 */
class MalformedRowsTest {

  @Test
  void aQueueRowThatDoesNotDecodeIsDeadLetteredAloneAndTheRowsAroundItAreProcessed()
      throws Exception {
    try (Rig rig = new Rig(TestDatabase.embedded())) {
      rig.db.execute("CREATE TABLE effects (event_id text)");
      Consumer consumer =
          rig.consumer(
              "warehouse",
              Rig.fast(5),
              (tx, e) -> tx.update("INSERT INTO effects VALUES (?)", e.id().value()));
      for (int i = 0; i < 10; i++) {
        if (i == 2) {
          queueRow(rig, "'bad\u0001id'", "'OrderPaid'", "'{}'::bytea", "'{}'");
        } else if (i == 4) {
          queueRow(rig, "'bad-type:4'", "repeat('t', 300)", "'{}'::bytea", "'{}'");
        } else if (i == 6) {
          queueRow(rig, "'bad-headers:6'", "'OrderPaid'", "'{}'::bytea", "ARRAY['a', NULL]");
        } else if (i == 8) {
          queueRow(
              rig, "'big:8'", "'OrderPaid'", "convert_to(repeat('x', 2097152), 'UTF8')", "'{}'");
        } else {
          queueRow(rig, "'order-paid:" + i + "'", "'OrderPaid'", "'{}'::bytea", "'{}'");
        }
      }

      rig.drain(consumer);

      assertThat(rig.db.count("SELECT count(*) FROM effects")).isEqualTo(6);
      assertThat(
              rig.db.count(
                  "SELECT count(*) FROM once_dead_letter WHERE consumer_id = 'warehouse'"
                      + " AND error_class = 'dev.once.MalformedMessage' AND attempts = 1"))
          .isEqualTo(4);
      assertThat(
              rig.db.count(
                  "SELECT count(*) FROM once_dead_letter WHERE error_message IN ("
                      + "'once-event-id has a control character at index 3',"
                      + " 'type is 300 characters long, the limit is 200',"
                      + " 'header ''a'' is null',"
                      + " 'body is 2097152 bytes, the limit is 1048576')"))
          .isEqualTo(4);
      assertThat(rig.db.count("SELECT count(*) FROM once_queue")).as("acknowledged").isZero();
    }
  }

  @Test
  void anOutboxRowThatDoesNotDecodeIsParkedAloneAndTheRowsBehindItArePublished() throws Exception {
    try (Rig rig = new Rig(TestDatabase.embedded())) {
      rig.db.execute("CREATE TABLE effects (event_id text)");
      Consumer consumer =
          rig.consumer(
              "warehouse",
              Rig.fast(5),
              (tx, e) -> tx.update("INSERT INTO effects VALUES (?)", e.id().value()));
      for (int i = 0; i < 10; i++) {
        String type = i == 3 ? "repeat('t', 300)" : "'OrderPaid'";
        rig.db.execute(
            "INSERT INTO once_outbox (event_id, destination, event_key, event_type, payload,"
                + " key_partition) VALUES ('order-paid:"
                + i
                + "', 'orders', 'k', "
                + type
                + ", '{}'::bytea, 0)");
      }

      rig.drain(consumer);

      assertThat(rig.db.count("SELECT count(*) FROM effects")).isEqualTo(9);
      assertThat(
              rig.db.count(
                  "SELECT count(*) FROM once_outbox WHERE event_id = 'order-paid:3'"
                      + " AND sent_at IS NULL AND next_attempt_at = 'infinity'"))
          .as("parked")
          .isEqualTo(1);
      assertThat(
              rig.db.count(
                  "SELECT count(*) FROM once_dead_letter WHERE consumer_id = '(relay)'"
                      + " AND error_class = 'dev.once.MalformedMessage'"
                      + " AND error_message = 'type is 300 characters long, the limit is 200'"))
          .isEqualTo(1);
    }
  }

  private static void queueRow(
      Rig rig, String eventId, String type, String payload, String headers) {
    rig.db.execute(
        "INSERT INTO once_queue (consumer_group, event_id, destination, event_key, event_type,"
            + " payload, headers, enqueued_at, visible_at) VALUES ('warehouse', "
            + eventId
            + ", 'orders', NULL, "
            + type
            + ", "
            + payload
            + ", "
            + headers
            + ", now(), now())");
  }
}
