package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * What a producer's transaction ({@code inTransaction}: a business row and {@code tx.publish} of
 * one event without headers) allocates on its thread, under a HikariCP pool: to the outbox, and to
 * the table queue enqueued in the producer's transaction, as the README sets it up. The bounds sit
 * near what this code measures (the median of {@value #ROUNDS} rounds after a warm-up); the
 * driver's share (a prepared statement per statement and transaction, its results) is most of it.
 *
 * <p>Before (issue #42, round 5): per transaction a holder array and two capturing lambdas, a list
 * of ten slots for one event, a {@code Sql}, the listeners' lambda and iterator for a no-op
 * listener, the outbox row's parameter array, and on the table queue a set of ids, two date-times
 * (a TimestampUtils with a GregorianCalendar each) and an empty header array through pgjdbc's array
 * encoder.
 */
class ProducerTransactionAllocationTest {
  private static final int WARM = 3_000;
  private static final int ROUNDS = 9;
  private static final int PER_ROUND = 300;

  @Test
  void anOutboxTransactionAllocatesLittleMoreThanItsStatements() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        HikariDataSource pool = pool(db.dataSource());
        TableQueueTransport elsewhere = TableQueueTransport.create(db.dataSource());
        Once once =
            Once.builder()
                .dataSource(pool)
                .transport(elsewhere) // another data source's queue: every event to the outbox
                .destinations("orders")
                .listener(OnceListener.NOOP)
                .build()) {
      db.execute("CREATE TABLE alloc_orders (order_id bigint PRIMARY KEY)");
      long bytes = bytesPerTransaction(once);
      assertThat(db.count("SELECT count(*) FROM once_outbox")).isEqualTo(WARM + ROUNDS * PER_ROUND);
      // measured: 2 304 bytes per transaction, before 2 616
      assertThat(bytes).as("bytes per outbox transaction").isLessThan(2_450);
    }
  }

  @Test
  void aTableQueueTransactionAllocatesLittleMoreThanItsStatements() throws Exception {
    try (TestDatabase db = TestDatabase.embedded();
        HikariDataSource pool = pool(db.dataSource());
        TableQueueTransport queue =
            TableQueueTransport.builder(pool).enqueueInProducerTransaction(true).build();
        Once once =
            Once.builder().dataSource(pool).transport(queue).destinations("orders").build()) {
      db.execute("CREATE TABLE alloc_orders (order_id bigint PRIMARY KEY)");
      once.consumer("warehouse").subscribe("orders", (tx, e) -> {}).build(); // binds the group
      long bytes = bytesPerTransaction(once);
      assertThat(db.count("SELECT count(*) FROM once_queue"))
          .as("every event enqueued in its producer's transaction")
          .isEqualTo(WARM + ROUNDS * PER_ROUND);
      // measured: 2 400 bytes per transaction, before 4 515
      assertThat(bytes).as("bytes per table-queue transaction").isLessThan(2_650);
    }
  }

  /**
   * The median over {@link #ROUNDS} rounds of the bytes one transaction allocated on this thread.
   */
  private static long bytesPerTransaction(Once once) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long me = Thread.currentThread().getId();
    int id = 0;
    while (id < WARM) {
      order(once, ++id);
    }
    long[] perTransaction = new long[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
      long before = threads.getThreadAllocatedBytes(me);
      for (int i = 0; i < PER_ROUND; i++) {
        order(once, ++id);
      }
      perTransaction[r] = (threads.getThreadAllocatedBytes(me) - before) / PER_ROUND;
    }
    Arrays.sort(perTransaction);
    return perTransaction[ROUNDS / 2];
  }

  private static void order(Once once, int id) {
    once.inTransaction(
        tx -> {
          tx.update("INSERT INTO alloc_orders (order_id) VALUES (?)", (long) id);
          return tx.publish(
              Event.of(
                  EventId.of("order", id),
                  "orders",
                  Integer.toString(id),
                  "Ordered",
                  "{\"orderId\":" + id + "}"));
        });
  }

  private static HikariDataSource pool(DataSource dataSource) {
    HikariConfig cfg = new HikariConfig();
    cfg.setDataSource(dataSource);
    cfg.setMaximumPoolSize(2);
    // The bytes counted are the client's; the server's flush of each commit to disk is not: 5 700
    // commits a test waited on it (fsync on, synchronous_commit on: the embedded server's), most of
    // the test's 45 s at load 13.
    cfg.setConnectionInitSql("SET synchronous_commit TO off");
    return new HikariDataSource(cfg);
  }
}
