package dev.once.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.once.test.CountingDataSource;
import dev.once.test.FaultRun;
import dev.once.test.LogLines;
import dev.once.test.RestartablePostgres;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL is restarted (fast shutdown, start on the same files, as {@code pg_ctlcluster …
 * restart} does) while a producer, the relay and four workers of a table-queue consumer run in this
 * JVM. Nobody restarts anything of Once: the workers and the relay must come back by themselves,
 * without a hot loop while the database is away, and every event must end with exactly one effect.
 */
class DatabaseRestartTest {
  private static final int EVENTS = 4_000;

  @Test
  void workersAndRelayRecoverByThemselvesWhenPostgresRestartsMidRun() {
    try (RestartablePostgres pg = RestartablePostgres.start(Map.of("max_connections", "60"));
        HikariDataSource pool = Pipeline.pool(pg.jdbcUrl(), 10);
        LogLines log = LogLines.capture()) {
      CountingDataSource ds = new CountingDataSource(pool);
      try (Pipeline p = new Pipeline(ds)) {
        FaultRun run = new FaultRun(ds);
        p.start();
        Thread producer = run.produceInBackground(p.once, 0, EVENTS * 3 / 4, Duration.ofMillis(60));
        Pipeline.awaitEffects(run, 500);

        long failedBefore = ds.failedOn("once-");
        long stopNanos = System.nanoTime();
        long effectsAtStop = run.effects();
        pg.stop();
        FaultRun.sleep(Duration.ofSeconds(3)); // the producer's transactions fail and are retried
        pg.start();
        long upNanos = System.nanoTime();
        long upMillis = System.currentTimeMillis();
        long[] connectionsAtUp = Pipeline.workerConnections(ds);

        Pipeline.join(producer);
        run.produce(p.once, EVENTS * 3 / 4, EVENTS, Duration.ofMillis(60), Duration.ofSeconds(10));
        run.awaitAll(EVENTS, Duration.ofSeconds(60));
        // from the stop to the end: failures of the engine's threads are the outage's
        long failedWhileDown = ds.failedOn("once-") - failedBefore;
        long warnLines = log.count("failed", stopNanos, Long.MAX_VALUE);
        long workersHit = log.count("consumer warehouse batch failed", stopNanos, Long.MAX_VALUE);
        long firstEffect = run.firstEffectAfter(upMillis);
        long relayBack =
            run.count(
                "SELECT coalesce(floor(extract(epoch FROM min(sent_at)) * 1000), -1)::bigint"
                    + " FROM once_outbox WHERE sent_at > to_timestamp("
                    + upMillis / 1000.0
                    + ")");
        System.out.printf(
            "FAULT postgres restart: down %d ms; after it accepted connections: first effect"
                + " %d ms, relay published %d ms, workers with an effect again %d of %d;"
                + " from the stop on: %d failed connection attempts by the engine, %d log lines"
                + " 'failed' (%d of a worker's batch), %d producer retries%n",
            Duration.ofNanos(upNanos - stopNanos).toMillis(),
            firstEffect - upMillis,
            relayBack - upMillis,
            run.workersAfter(upMillis),
            Pipeline.WORKERS,
            failedWhileDown,
            warnLines,
            workersHit,
            run.producerFailures());

        assertThat(effectsAtStop).as("the restart came while events flowed").isLessThan(EVENTS);
        assertThat(run.producerFailures()).as("the producer saw the outage").isPositive();
        run.assertEachProcessedOnce(EVENTS);
        assertThat(workersHit).as("(the test's premise) workers that saw the outage").isPositive();
        // Each worker proves its own recovery by its own polls on the restarted database, not by
        // winning deliveries: one still in its pause (up to 5 s) when the database came back may
        // find the backlog already drained by the others.
        Pipeline.awaitEveryWorkerPolls(ds, connectionsAtUp, 3);
        assertThat(relayBack - upMillis)
            .as("ms from the database accepting connections to the relay's first publish")
            .isBetween(0L, 10_000L);
        assertThat(firstEffect - upMillis)
            .as("ms from the database accepting connections to the first effect")
            .isBetween(0L, 10_000L);
        // 4 workers and a relay, each pausing 100 ms, 200 ms, 400 ms … up to 5 s between tries: a
        // few dozen failures at most (the pool's 1 s wait for a connection slows them further).
        assertThat(failedWhileDown).as("failed connection attempts").isLessThan(60);
        assertThat(warnLines).as("log lines 'failed'").isLessThan(60);
      }
    }
  }
}
