package dev.once.app.proof;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.test.TestDatabase;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What verify's phases wait for on the table queue: the deliveries taken when a phase ended are
 * back once each was acknowledged (its row gone) or taken again (its count up); one still held, or
 * a delivery taken for the first time since, does not count.
 */
class HeldDeliveriesTest {

  @Test
  void deliveriesAreBackOnceEachWasAcknowledgedOrTakenAgain() {
    try (TestDatabase db = TestDatabase.embedded()) {
      long acked = insert(db, 1);
      long heldByTheDead = insert(db, 2);
      long neverTaken = insert(db, 0);
      HeldDeliveries held = new HeldDeliveries(db.dataSource());

      Map<Long, Integer> taken = held.taken();
      assertThat(taken).containsOnlyKeys(acked, heldByTheDead);
      assertThat(held.allBack(taken)).as("both still held").isFalse();

      db.execute("DELETE FROM once_queue WHERE id = " + acked);
      assertThat(held.allBack(taken)).as("one acknowledged, one still held").isFalse();

      db.execute("UPDATE once_queue SET delivery_count = 1 WHERE id = " + neverTaken);
      assertThat(held.allBack(taken)).as("another delivery taken: not the held one").isFalse();

      db.execute("UPDATE once_queue SET delivery_count = 3 WHERE id = " + heldByTheDead);
      assertThat(held.allBack(taken)).as("the held one taken again").isTrue();
    }
  }

  private static long insert(TestDatabase db, int deliveryCount) {
    db.execute(
        "INSERT INTO once_queue (consumer_group, event_id, destination, event_type, payload,"
            + " enqueued_at, visible_at, delivery_count) VALUES ('warehouse', 'e"
            + deliveryCount
            + "', 'orders', 'OrderPaid', '\\x7b7d', now(), now(), "
            + deliveryCount
            + ")");
    return db.count("SELECT max(id) FROM once_queue");
  }
}
