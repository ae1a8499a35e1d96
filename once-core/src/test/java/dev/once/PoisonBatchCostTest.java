package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * What a consumer batch with one failing handler costs, counted on the test thread over one data
 * source shared by Once and the table queue (so the poll, the acknowledgement and the return of the
 * failed delivery count too): a batch of eight, the fourth handler throws. The batch runs without
 * savepoints, rolls back at the failure and runs again with a savepoint per handler, taking the
 * failure as the fourth one's result, the seven others' rows deleted in that transaction (the table
 * queue on Once's own data source is acknowledged in it); its failure is recorded in a short
 * transaction of its own; the fourth is returned with its backoff. The next batch of eight (no
 * failure) runs with savepoints. A path that runs the batch a third time, calls the failing handler
 * twice, records the failure per delivery or settles one delivery at a time fails here.
 */
class PoisonBatchCostTest {
  private static final int BATCH = 8;

  /** Round trips on the test thread: statements, commits, rollbacks and savepoint calls. */
  record Cost(long statements, long commits, long rollbacks, long savepoints) {}

  @Test
  void aBatchOfEightWithOneFailingHandlerCostsTwoRunsAndOneFailureRecord() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("CREATE TABLE poison_effects (event_id text PRIMARY KEY)");
      Counter counter = new Counter(db.dataSource());
      AtomicLong handlerCalls = new AtomicLong();
      try (TableQueueTransport queue = TableQueueTransport.create(counter.dataSource);
          Once once =
              Once.builder()
                  .dataSource(counter.dataSource)
                  .transport(queue)
                  .destinations("orders")
                  .build()) {
        Consumer consumer =
            once.consumer("warehouse")
                .subscribe(
                    "orders",
                    (tx, e) -> {
                      handlerCalls.incrementAndGet();
                      if (e.id().value().equals("o:3")) {
                        throw new IllegalStateException("poison");
                      }
                      tx.update("INSERT INTO poison_effects (event_id) VALUES (?)", e.id().value());
                    })
                .batchSize(BATCH)
                .batchLinger(Duration.ZERO)
                .idleWait(Duration.ofMillis(1))
                .retry(
                    RetryPolicy.builder().backoff(Duration.ofHours(1), Duration.ofHours(1)).build())
                .build();
        publish(once, 0);
        assertThat(once.newRelay().runOnce()).isEqualTo(BATCH);

        counter.reset();
        assertThat(consumer.runOnce()).isEqualTo(BATCH);
        Cost poisoned = counter.cost();
        assertThat(handlerCalls.get())
            .as("handler calls: 4 in the first run, 7 in the rerun")
            .isEqualTo(11);
        assertThat(db.count("SELECT count(*) FROM poison_effects")).isEqualTo(BATCH - 1);
        assertThat(db.count("SELECT count(*) FROM once_attempt WHERE event_id = 'o:3'"))
            .isEqualTo(1);

        publish(once, BATCH);
        assertThat(once.newRelay().runOnce()).isEqualTo(BATCH);
        counter.reset();
        assertThat(consumer.runOnce()).isEqualTo(BATCH);
        Cost next = counter.cost();
        assertThat(db.count("SELECT count(*) FROM poison_effects")).isEqualTo(2 * BATCH - 1);

        assertThat(poisoned)
            .as(
                "the batch with a failure: the poll; markers, 3 handlers, rollback; markers, a"
                    + " savepoint and a handler for each of the 7 others, the fourth's marker"
                    + " deleted, the 7 rows deleted, commit; the failure recorded, commit; the"
                    + " return of 1, committed by the table queue")
            .isEqualTo(new Cost(18, 4, 1, 7));
        assertThat(next)
            .as(
                "the next batch: the poll; markers, a savepoint and a handler each, the rows"
                    + " deleted, commit")
            .isEqualTo(new Cost(11, 2, 0, 8));
      }
    }
  }

  private static void publish(Once once, int from) {
    once.useTransaction(
        tx -> {
          for (int i = from; i < from + BATCH; i++) {
            tx.publish(Event.of(EventId.of("o", i), "orders", "k" + i, "OrderPaid", "{}"));
          }
        });
  }

  /** Counts the round trips of the test thread on the connections of one data source. */
  static final class Counter {
    private final Thread owner = Thread.currentThread();
    private final AtomicLong statements = new AtomicLong();
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong rollbacks = new AtomicLong();
    private final AtomicLong savepoints = new AtomicLong();
    final DataSource dataSource;

    Counter(DataSource delegate) {
      this.dataSource = proxy(DataSource.class, delegate, this::onDataSource);
    }

    void reset() {
      statements.set(0);
      commits.set(0);
      rollbacks.set(0);
      savepoints.set(0);
    }

    Cost cost() {
      return new Cost(statements.get(), commits.get(), rollbacks.get(), savepoints.get());
    }

    private boolean mine() {
      return Thread.currentThread() == owner;
    }

    private Object onDataSource(Object target, Method m, Object[] args) throws Throwable {
      Object result = call(target, m, args);
      return result instanceof Connection c
          ? proxy(Connection.class, c, this::onConnection)
          : result;
    }

    private Object onConnection(Object target, Method m, Object[] args) throws Throwable {
      if (mine()) {
        switch (m.getName()) {
          case "commit" -> commits.incrementAndGet();
          case "rollback" -> (args == null ? rollbacks : savepoints).incrementAndGet();
          case "setSavepoint" -> savepoints.incrementAndGet();
          default -> {}
        }
      }
      Object result = call(target, m, args);
      if (result instanceof Statement s) {
        @SuppressWarnings("unchecked")
        Class<Statement> type = (Class<Statement>) m.getReturnType();
        return proxy(type, type.cast(s), this::onStatement);
      }
      return result;
    }

    private Object onStatement(Object target, Method m, Object[] args) throws Throwable {
      if (m.getName().startsWith("execute") && mine()) {
        statements.incrementAndGet();
      }
      return call(target, m, args);
    }
  }

  private interface Call {
    Object on(Object target, Method m, Object[] args) throws Throwable;
  }

  private static <T> T proxy(Class<T> type, T target, Call call) {
    InvocationHandler h =
        (p, m, args) ->
            m.getName().equals("unwrap") && ((Class<?>) args[0]).isInstance(p)
                ? p // as the JDBC Wrapper contract asks: no way around the count
                : call.on(target, m, args);
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, h));
  }

  private static Object call(Object target, Method m, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
