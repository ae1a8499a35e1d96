package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.once.Consumer;
import dev.once.Once;
import dev.once.Relay;
import dev.once.RetryPolicy;
import dev.once.Schema;
import dev.once.jdbc.Dialects;
import dev.once.test.CountingDataSource;
import dev.once.test.FaultRun;
import dev.once.test.LogLines;
import dev.once.test.RestartablePostgres;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL restarts mid-run under a RabbitMQ pipeline (producer, relay, four workers in this JVM;
 * the shared broker, in a virtual host of this test, keeps running). A worker whose batch fails
 * because the database is unreachable must keep its deliveries and try them again: closing its
 * channel at every failed try would hand them back to the broker each time, and the broker counts
 * every return against its delivery limit, then dead-letters them on its own. Here the limit is 3
 * and the outage lasts several tries: every event must still end with exactly one effect and
 * nothing in the broker's dead-letter queue.
 */
class PostgresRestartTest {
  private static final int EVENTS = 4_000;
  private static final int WORKERS = 4;

  @Test
  void workersKeepTheirDeliveriesAndRecoverByThemselvesWhenPostgresRestartsMidRun() {
    String vhost = Broker.newVhost();
    try (RestartablePostgres pg = RestartablePostgres.start(Map.of("max_connections", "60"));
        HikariDataSource pool = pool(pg.jdbcUrl());
        LogLines log = LogLines.capture();
        RabbitTransport transport =
            RabbitTransport.builder()
                .uri(Broker.uri(vhost))
                .deliveryLimit(3)
                .recoveryBackoff(Duration.ofMillis(250), Duration.ofSeconds(2))
                .build()) {
      CountingDataSource ds = new CountingDataSource(pool);
      Schema.apply(ds, Dialects.postgresql());
      FaultRun run = new FaultRun(ds);
      try (Once once =
              Once.builder()
                  .dataSource(ds)
                  .transport(transport)
                  .destinations(FaultRun.DESTINATION)
                  .relayIdleWait(Duration.ofMillis(200))
                  .confirmTimeout(Duration.ofSeconds(5))
                  .build();
          Consumer consumer =
              once.consumer("warehouse")
                  .subscribe(FaultRun.DESTINATION, FaultRun.effect())
                  .retry(RetryPolicy.builder().maxAttempts(2).build())
                  // batches of one: a limit of 3 allows no bisection rounds for a poison
                  .batchSize(1)
                  .workers(WORKERS)
                  .idleWait(Duration.ofMillis(200))
                  .build();
          Relay relay = once.newRelay()) {
        consumer.start();
        relay.start();
        // a backlog, so that the workers are busy when the database goes
        run.produce(once, 0, EVENTS * 5 / 8, Duration.ZERO, Duration.ofSeconds(10));
        Thread producer =
            run.produceInBackground(once, EVENTS * 5 / 8, EVENTS * 3 / 4, Duration.ofMillis(60));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (run.effects() < 300 && System.nanoTime() < deadline) {
          FaultRun.sleep(Duration.ofMillis(20));
        }

        long failedBefore = ds.failedOn("once-");
        long stopNanos = System.nanoTime();
        long effectsAtStop = run.effects();
        pg.stop();
        FaultRun.sleep(Duration.ofSeconds(5));
        pg.start();
        long upNanos = System.nanoTime();
        long upMillis = System.currentTimeMillis();

        join(producer);
        run.produce(once, EVENTS * 3 / 4, EVENTS, Duration.ofMillis(60), Duration.ofSeconds(10));
        run.awaitAll(EVENTS, Duration.ofSeconds(30));
        // from the stop to the end: failures of the engine's threads are the outage's
        long failedWhileDown = ds.failedOn("once-") - failedBefore;
        long warnLines = log.count("failed", stopNanos, Long.MAX_VALUE);
        long workersHit = log.count("consumer warehouse batch failed", stopNanos, Long.MAX_VALUE);
        long firstEffect = run.firstEffectAfter(upMillis);
        long brokerDeadLetters = transport.count(FaultRun.DESTINATION, "warehouse");
        System.out.printf(
            "FAULT postgres restart under RabbitMQ: %d effects at the stop, down %d ms; after it"
                + " accepted connections: first effect %d ms, workers that processed again %d of"
                + " %d; from the stop on: %d failed connection attempts by the engine, %d log"
                + " lines 'failed', %d producer retries, %d failed batches of a worker; broker"
                + " dead letters %d%n",
            effectsAtStop,
            Duration.ofNanos(upNanos - stopNanos).toMillis(),
            firstEffect - upMillis,
            run.workersAfter(upMillis),
            WORKERS,
            failedWhileDown,
            warnLines,
            run.producerFailures(),
            workersHit,
            brokerDeadLetters);

        assertThat(effectsAtStop).as("the restart came while events flowed").isLessThan(EVENTS);
        assertThat(brokerDeadLetters)
            .as("messages the broker dead-lettered (delivery limit) while the database was down")
            .isZero();
        consumer.close(); // what it held goes back to the queue, where it is counted
        String queue = transport.queueName(FaultRun.DESTINATION, "warehouse");
        run.assertEachProcessedOnce(EVENTS, () -> Broker.messagesIn(Broker.uri(vhost), queue));
        assertThat(workersHit)
            .as("(the test's premise) workers whose batch the outage hit")
            .isPositive();
        assertThat(run.workersAfter(upMillis))
            .as("worker threads that processed events after the restart (none stayed dead)")
            .isEqualTo(WORKERS);
        assertThat(firstEffect - upMillis)
            .as("ms from the database accepting connections to the first effect")
            .isBetween(0L, 10_000L);
        assertThat(failedWhileDown).as("failed connection attempts while down").isLessThan(60);
      }
    } finally {
      Broker.deleteVhost(vhost);
    }
  }

  private static HikariDataSource pool(String url) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(url);
    cfg.setMaximumPoolSize(10);
    cfg.setConnectionTimeout(1_000); // the engine's own pauses are what the test measures
    cfg.setPoolName("faults");
    return new HikariDataSource(cfg);
  }

  private static void join(Thread t) {
    try {
      t.join(60_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
