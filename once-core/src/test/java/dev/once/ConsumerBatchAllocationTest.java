package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * What one consumer batch of the table queue costs the JVM on the thread that runs it (the queue
 * and Once on one data source, as the README sets them up): the date-times its statements bind
 * (pgjdbc builds a TimestampUtils with a GregorianCalendar for each statement that binds one), and
 * the bytes it allocates per event, a batch of {@value #BATCH} fresh events with no headers and a
 * batch of one (a busy receiver claims often and mostly finds one row or none). The bounds are
 * generous (the median of ten batches, after a warm-up): they catch a path that allocates per event
 * or per claim what it allocated before (a TimestampUtils per claim, maps per row, a map by key and
 * a tree by level per poll), not a few objects more.
 */
class ConsumerBatchAllocationTest {
  private static final int BATCH = 32;
  private static final int ROUNDS = 10;
  private static final int WARM = 40;

  /** What a batch of {@code size} cost: date-times bound, and median bytes per event. */
  record Cost(long dateTimes, long bytesPerEvent) {}

  @Test
  void aBatchBindsNoDateTimeAndAllocatesLittlePerEvent() throws Exception {
    Cost full =
        new Cost(batchCost(BATCH, true).dateTimes(), batchCost(BATCH, false).bytesPerEvent());
    Cost one = new Cost(batchCost(1, true).dateTimes(), batchCost(1, false).bytesPerEvent());
    assertThat(full.dateTimes())
        .as(
            "date-times bound by a batch of %d (before: 2, the claim's now and visible-until)",
            BATCH)
        .isZero();
    assertThat(one.dateTimes()).as("date-times bound by a batch of one").isZero();
    // measured on the test thread: a batch of 32 2 742 bytes per event, before 3 126; a batch of
    // one 10 152, before 12 576 (a TimestampUtils per claim, maps per row and per poll)
    assertThat(full.bytesPerEvent()).as("bytes per event, batch of %d", BATCH).isLessThan(2_950);
    assertThat(one.bytesPerEvent()).as("bytes per event, batch of one").isLessThan(11_300);
  }

  /**
   * A batch of {@code size}'s cost; {@code counted}: through the statement counter (its proxies
   * allocate too: the bytes then are not the consumer's alone, and the date-times are counted).
   */
  private static Cost batchCost(int size, boolean counted) throws Exception {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long me = Thread.currentThread().getId();
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("CREATE TABLE alloc_effects (event_id text PRIMARY KEY)");
      ProducerCostTest.Counter counter = new ProducerCostTest.Counter(db.dataSource());
      DataSource ds = counted ? counter.dataSource : db.dataSource();
      try (TableQueueTransport queue = TableQueueTransport.create(ds);
          Once once =
              Once.builder().dataSource(ds).transport(queue).destinations("orders").build()) {
        Consumer consumer =
            once.consumer("warehouse")
                .subscribe(
                    "orders",
                    (tx, e) ->
                        tx.update(
                            "INSERT INTO alloc_effects (event_id) VALUES (?)", e.id().value()))
                .batchSize(size)
                .batchLinger(Duration.ZERO)
                .idleWait(Duration.ofMillis(1))
                .build();
        Relay relay = once.newRelay();
        long[] perEvent = new long[ROUNDS];
        long dateTimes = 0;
        for (int r = 0; r < WARM + ROUNDS; r++) {
          int base = r * size;
          once.useTransaction(
              tx -> {
                for (int i = 0; i < size; i++) {
                  tx.publish(
                      Event.of(EventId.of("o", base + i), "orders", "k" + (base + i), "T", "{}"));
                }
              });
          int sent = 0;
          while (sent < size) {
            sent += relay.runOnce();
          }
          counter.reset();
          long before = threads.getThreadAllocatedBytes(me);
          assertThat(consumer.runOnce()).isEqualTo(size);
          long bytes = threads.getThreadAllocatedBytes(me) - before;
          if (r >= WARM) {
            perEvent[r - WARM] = bytes / size;
            dateTimes = Math.max(dateTimes, counter.dateTimes.get());
          }
        }
        assertThat(db.count("SELECT count(*) FROM alloc_effects"))
            .isEqualTo((WARM + ROUNDS) * size);
        Arrays.sort(perEvent);
        return new Cost(dateTimes, perEvent[ROUNDS / 2]);
      }
    }
  }
}
