package dev.once.tablequeue;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Event;
import dev.once.EventId;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Only an ordered group's rows are marked for key order (and so indexed in {@code once_queue_key}):
 * an unordered group's enqueue costs what it did before ordering existed. A declare from a process
 * that does not consume in order — one that only publishes, or an older one — does not unorder a
 * group.
 */
class KeyOrderMarkTest {
  @Test
  void onlyAnOrderedGroupsRowsAreMarkedAndAPlainDeclareDoesNotUnmarkIt() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        TableQueueTransport consumerSide = TableQueueTransport.create(db.dataSource());
        TableQueueTransport publisherSide = TableQueueTransport.create(db.dataSource())) {
      consumerSide.declare("orders", "plain");
      consumerSide.deliverInKeyOrder("orders", "statuses");
      consumerSide.declare("orders", "statuses");
      publisherSide.publish(List.of(event("e-1")), Duration.ofSeconds(5));

      assertThat(marked(db, "plain")).as("rows of the unordered group marked").isZero();
      assertThat(marked(db, "statuses")).as("rows of the ordered group marked").isEqualTo(1);

      publisherSide.declare("orders", "statuses"); // a process that does not order the group
      publisherSide.publish(List.of(event("e-2")), Duration.ofSeconds(5));

      assertThat(marked(db, "statuses")).as("after a plain declare").isEqualTo(2);
      assertThat(marked(db, "plain")).isZero();
    }
  }

  private static long marked(TestDatabase db, String group) {
    return db.count(
        "SELECT count(*) FROM once_queue WHERE in_key_order AND consumer_group = '" + group + "'");
  }

  private static Event event(String id) {
    return Event.of(new EventId(id), "orders", "k", "StatusChanged", "{}");
  }
}
