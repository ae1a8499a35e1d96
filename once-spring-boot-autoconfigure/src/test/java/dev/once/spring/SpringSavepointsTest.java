package dev.once.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.RetryPolicy;
import dev.once.spi.TransactionRunner;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * With Spring's JDBC transaction manager a failing delivery is undone to its savepoint and its
 * batch-mates are not run again: handler calls per event with 20 % first-attempt failures, counted
 * on this thread, stay at most 1.3 (each failing event runs twice: 1.2 is the floor), and every
 * event has exactly one effect. The twin without savepoints (a failure rolls the whole batch back,
 * as before) costs more than the bound, so the count can fail.
 */
class SpringSavepointsTest {
  static final int EVENTS = 250; // every 5th fails its first attempt: 50
  static final int BATCH = 32;
  static final double BOUND = 1.3;

  @Test
  void onPostgresqlAFailingDeliveryIsUndoneAloneAndItsBatchMatesRunOnce() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      double perEvent = callsPerEvent(db, false);
      System.out.printf("postgresql, DataSourceTransactionManager: %.2f calls/event%n", perEvent);
      assertThat(perEvent).isLessThanOrEqualTo(BOUND);
    }
  }

  @Test
  void onMariaDbAFailingDeliveryIsUndoneAloneAndItsBatchMatesRunOnce() throws Exception {
    try (TestDatabase db = TestDatabase.mariadb()) {
      double perEvent = callsPerEvent(db, false);
      System.out.printf("mariadb, DataSourceTransactionManager: %.2f calls/event%n", perEvent);
      assertThat(perEvent).isLessThanOrEqualTo(BOUND);
    }
  }

  @Test
  void theCountCatchesARunnerThatRollsTheWholeBatchBackOnEachFailure() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      double perEvent = callsPerEvent(db, true);
      System.out.printf("postgresql, without savepoints (before): %.2f calls/event%n", perEvent);
      assertThat(perEvent).isGreaterThan(BOUND);
    }
  }

  /** Publishes {@link #EVENTS}, runs the consumer on this thread until each has its effect. */
  private static double callsPerEvent(TestDatabase db, boolean withoutSavepoints) throws Exception {
    db.execute("CREATE TABLE effects (event_id varchar(100) NOT NULL PRIMARY KEY)");
    DataSourceTransactionManager tm = new DataSourceTransactionManager(db.dataSource());
    TransactionRunner spring = new SpringTransactions(tm, db.dataSource());
    TransactionRunner runner = withoutSavepoints ? new WithoutMarks(spring) : spring;
    JdbcTemplate jdbc = new JdbcTemplate(db.dataSource());
    AtomicInteger calls = new AtomicInteger();
    Set<String> failedOnce = ConcurrentHashMap.newKeySet();
    try (TableQueueTransport transport = TableQueueTransport.builder(db.dataSource()).build();
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .transactions(runner)
                .destinations("orders")
                .build();
        Consumer consumer =
            once.consumer("shipping")
                .subscribe(
                    "orders",
                    (tx, event) -> {
                      calls.incrementAndGet();
                      String id = event.id().value();
                      jdbc.update("INSERT INTO effects (event_id) VALUES (?)", id);
                      int n = Integer.parseInt(id.substring(id.indexOf(':') + 1));
                      if (n % 5 == 0 && failedOnce.add(id)) {
                        throw new IllegalStateException("first attempt of " + id + " fails");
                      }
                    })
                .batchSize(BATCH)
                .idleWait(Duration.ofMillis(50))
                .retry(
                    RetryPolicy.builder()
                        .backoff(Duration.ofMillis(10), Duration.ofMillis(20))
                        .build())
                .build()) {
      once.inTransaction(
          tx -> {
            for (int i = 1; i <= EVENTS; i++) {
              tx.publish(
                  Event.of(new EventId("order-paid:" + i), "orders", "k" + i, "OrderPaid", "{}"));
            }
            return null;
          });
      while (once.newRelay().runOnce() > 0) {
        // until the outbox is empty
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (db.count("SELECT count(*) FROM effects") < EVENTS && System.nanoTime() < deadline) {
        consumer.runOnce();
      }
    }
    assertThat(db.count("SELECT count(*) FROM effects"))
        .as("one effect per event")
        .isEqualTo(EVENTS);
    assertThat(db.count("SELECT count(*) FROM once_dead_letter")).as("dead letters").isZero();
    assertThat(failedOnce).as("first attempts that failed").hasSize(EVENTS / 5);
    return calls.get() / (double) EVENTS;
  }

  /** Spring's runner as it was: no savepoints, so a failure rolls the whole batch back. */
  private record WithoutMarks(TransactionRunner runner) implements TransactionRunner {
    @Override
    public <T> T inTransaction(Work<T> work, Runnable afterCommit) throws Exception {
      return runner.inTransaction(work, afterCommit);
    }

    @Override
    public boolean undoesOnConnection() {
      return false;
    }

    @Override
    public boolean undoesToMark() {
      return false;
    }

    @Override
    public Mark mark(Connection connection) throws SQLException {
      throw new AssertionError("no marks without undoesToMark");
    }
  }
}
