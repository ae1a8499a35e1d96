package dev.once.app.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.scenario.ProviderCounts;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import dev.once.testkit.CrashPoint;
import dev.once.testkit.FaultInjector;
import java.time.Duration;
import java.util.EnumSet;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The demo's charge per order under both operation crash windows and lost answers: the warehouse
 * records the charge in its transaction (id from the order), the reconcilers perform it. Checked at
 * the provider's ledger.
 */
class DemoOperationsTest {
  private static final int ORDERS = 200;

  @Test
  void everyOrderIsChargedOnceOnTheEmbeddedDatabase() throws Exception {
    run(TestDatabase::embedded);
  }

  @Test
  void everyOrderIsChargedOnceOnTheLocalServer() throws Exception {
    run(TestDatabase::local);
  }

  private void run(Supplier<TestDatabase> database) throws Exception {
    FaultInjector crashes =
        FaultInjector.random(
            42,
            0.1,
            EnumSet.of(
                CrashPoint.OPERATION_KEY_STORED_BEFORE_CALL,
                CrashPoint.OPERATION_PROVIDER_ACCEPTED_BEFORE_RESULT_STORED));
    try (TestDatabase db = database.get();
        TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations("orders")
                .listener(crashes)
                .build();
        DemoOperations ops = new DemoOperations(once, 0.1, 42)) {
      Consumer warehouse =
          once.consumer("warehouse")
              .subscribe("orders", (tx, e) -> ops.recordCharge(tx, Long.parseLong(e.key())))
              .idleWait(Duration.ofMillis(50))
              .build()
              .start();
      for (int i = 1; i <= ORDERS; i++) {
        long order = i;
        once.inTransaction(
            tx ->
                tx.publish(
                    Event.of(
                        EventId.of("order-paid", order),
                        "orders",
                        Long.toString(order),
                        "OrderPaid",
                        "{}")));
      }
      once.newRelay().start();
      ops.start(2);
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (open(db) > 0 || db.count("SELECT count(*) FROM once_operation") < ORDERS) {
        assertThat(System.nanoTime()).as("drained in 60 s").isLessThan(deadline);
        Thread.sleep(100);
      }
      warehouse.close();
      ProviderCounts c = ops.counts(ORDERS, id -> false);
      System.out.printf(
          "demo operations on %s: %s, crashes %s, unknown left %d%n",
          db.schema(), c, crashes.crashes(), open(db));
      assertThat(crashes.totalCrashes()).isPositive();
      assertThat(c.charges()).isEqualTo(ORDERS);
      assertThat(c.ordersChargedTwice()).isZero();
      assertThat(c.ordersNotCharged()).isZero();
    }
  }

  private static long open(TestDatabase db) {
    return db.count(
        "SELECT count(*) FROM once_operation WHERE state IN ('PENDING','IN_FLIGHT','UNKNOWN')");
  }
}
