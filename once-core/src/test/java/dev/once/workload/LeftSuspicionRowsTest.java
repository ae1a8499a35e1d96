package dev.once.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.Once;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An attempt count and a suspicion level left for an event that is already processed — written by
 * the holder of one copy that ran alone while the other copy committed, after which its own
 * delivery was settled by the other holder and never came back — are cleared by the idle consumer.
 * Before, they stayed: {@code once demo --events 400 --crash-rate 0.2 --duplicate-rate 0.2 --seed
 * 23} drained at 75 s and then waited for its 600 s timeout on one "retrying" event. Rows of an
 * event that is not processed stay: that is a real retry.
 */
class LeftSuspicionRowsTest {
  static Stream<Supplier<TestDatabase>> databases() {
    return Stream.of(TestDatabase::embedded, TestDatabase::mariadb);
  }

  @ParameterizedTest
  @MethodSource("databases")
  void anIdleConsumerClearsTheRowsOfProcessedEventsAndKeepsRealRetries(
      Supplier<TestDatabase> database) throws Exception {
    try (TestDatabase db = database.get();
        TableQueueTransport transport = TableQueueTransport.builder(db.dataSource()).build();
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations("orders")
                .build()) {
      db.execute(
          "INSERT INTO once_inbox (consumer_id, event_id) VALUES ('warehouse', 'order-paid:300')");
      for (String id : new String[] {"order-paid:300", "order-paid:301"}) {
        db.execute(
            "INSERT INTO once_attempt (consumer_id, event_id, attempts, first_failed_at,"
                + " last_failed_at, error_class, error_fingerprint) VALUES ('warehouse', '"
                + id
                + "', 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, 'dev.once.AttemptStarted',"
                + " 'started')");
        db.execute(
            "INSERT INTO once_suspect (consumer_id, event_id, level, raised_at) VALUES"
                + " ('warehouse', '"
                + id
                + "', 5, CURRENT_TIMESTAMP)");
      }
      // another consumer's rows of a processed event of its own are not this consumer's to clear
      db.execute(
          "INSERT INTO once_attempt (consumer_id, event_id, attempts, first_failed_at,"
              + " last_failed_at, error_class, error_fingerprint) VALUES ('billing',"
              + " 'order-paid:300', 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP,"
              + " 'dev.once.AttemptStarted', 'started')");

      Consumer consumer =
          once.consumer("warehouse")
              .subscribe("orders", (tx, e) -> {})
              .workers(2)
              .idleWait(Duration.ofMillis(50))
              .build()
              .start();
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (db.count("SELECT count(*) FROM once_attempt WHERE event_id = 'order-paid:300'") > 1
          && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      consumer.close();

      assertThat(
              db.count(
                  "SELECT count(*) FROM once_attempt WHERE consumer_id = 'warehouse'"
                      + " AND event_id = 'order-paid:300'"))
          .as("attempt row of the processed event")
          .isZero();
      assertThat(db.count("SELECT count(*) FROM once_suspect WHERE event_id = 'order-paid:300'"))
          .as("suspicion row of the processed event")
          .isZero();
      assertThat(db.count("SELECT count(*) FROM once_attempt WHERE event_id = 'order-paid:301'"))
          .as("a real retry")
          .isEqualTo(1);
      assertThat(db.count("SELECT count(*) FROM once_suspect WHERE event_id = 'order-paid:301'"))
          .as("a real suspect")
          .isEqualTo(1);
      assertThat(db.count("SELECT count(*) FROM once_attempt WHERE consumer_id = 'billing'"))
          .as("another consumer's row")
          .isEqualTo(1);
    }
  }
}
