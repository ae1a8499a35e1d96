package dev.once.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.RetryPolicy;
import dev.once.Schema;
import dev.once.jdbc.Dialects;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.FaultRun;
import dev.once.test.RestartablePostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The database ends a worker's session while its handler runs ({@code pg_terminate_backend}, as an
 * administrator or a connection killer does; a failover does the same). The handler's next
 * statement fails on a dead connection: that is the database's failure, not the handler's, and must
 * not be charged as one of its attempts — with {@code maxAttempts(1)} a charge is a dead letter.
 * The batch runs again on a new session and every event gets exactly one effect.
 */
class SessionTerminatedTest {
  private static final int EVENTS = 20;

  @Test
  void aSessionEndedUnderTheHandlerIsNotChargedAsAHandlerFailure() throws Exception {
    try (RestartablePostgres pg = RestartablePostgres.start(Map.of());
        HikariDataSource pool = Pipeline.pool(pg.jdbcUrl(), 6)) {
      Schema.apply(pool, Dialects.postgresql());
      FaultRun run = new FaultRun(pool);
      CountDownLatch inHandler = new CountDownLatch(1);
      CountDownLatch terminated = new CountDownLatch(1);
      AtomicInteger victimPid = new AtomicInteger();
      TableQueueTransport transport = TableQueueTransport.create(pool);
      try (Once once =
              Once.builder()
                  .dataSource(pool)
                  .transport(transport)
                  .destinations(FaultRun.DESTINATION)
                  .build();
          Consumer consumer =
              once.consumer("warehouse")
                  .subscribe(
                      FaultRun.DESTINATION,
                      (tx, e) -> {
                        if (e.id().value().equals("order-paid:7") && victimPid.get() == 0) {
                          try (Statement s = tx.connection().createStatement();
                              ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
                            rs.next();
                            victimPid.set(rs.getInt(1));
                          }
                          inHandler.countDown();
                          terminated.await(10, TimeUnit.SECONDS);
                        }
                        FaultRun.effect().handle(tx, e);
                      })
                  .retry(RetryPolicy.builder().maxAttempts(1).build())
                  .batchSize(EVENTS)
                  .idleWait(Duration.ofMillis(200))
                  .build()) {
        once.inTransaction(
            tx -> {
              for (int i = 0; i < EVENTS; i++) {
                tx.publish(
                    Event.of(
                        EventId.of("order-paid", i), FaultRun.DESTINATION, "k" + i, "Order", "{}"));
              }
              return null;
            });
        once.newRelay().runOnce();
        consumer.start();

        assertThat(inHandler.await(20, TimeUnit.SECONDS)).as("the handler ran").isTrue();
        try (Connection admin = DriverManager.getConnection(pg.jdbcUrl());
            Statement s = admin.createStatement()) {
          s.execute("SELECT pg_terminate_backend(" + victimPid.get() + ")");
          // the session is gone once it no longer shows
          long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
          while (System.nanoTime() < deadline) {
            try (ResultSet rs =
                s.executeQuery(
                    "SELECT count(*) FROM pg_stat_activity WHERE pid = " + victimPid.get())) {
              rs.next();
              if (rs.getLong(1) == 0) {
                break;
              }
            }
            FaultRun.sleep(Duration.ofMillis(20));
          }
        }
        terminated.countDown();

        run.awaitAll(EVENTS, Duration.ofSeconds(20));
        run.assertEachProcessedOnce(EVENTS);
        assertThat(run.count("SELECT count(*) FROM once_attempt"))
            .as("attempts charged to handlers")
            .isZero();
      } finally {
        transport.close();
      }
    }
  }
}
