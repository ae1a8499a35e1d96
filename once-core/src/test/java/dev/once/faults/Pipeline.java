package dev.once.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.once.Consumer;
import dev.once.Once;
import dev.once.Relay;
import dev.once.Schema;
import dev.once.jdbc.Dialects;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.CountingDataSource;
import dev.once.test.FaultRun;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * What one {@code once worker} process runs, in this JVM: a table-queue transport, the relay and a
 * consumer with {@value #WORKERS} workers whose handler writes the business effect of {@link
 * FaultRun}. Started as a user would; nothing in it knows about faults.
 */
final class Pipeline implements AutoCloseable {
  static final int WORKERS = 4;
  final TableQueueTransport transport;
  final Once once;
  final Consumer consumer;
  final Relay relay;

  Pipeline(DataSource ds) {
    Schema.apply(ds, Dialects.postgresql());
    this.transport =
        TableQueueTransport.builder(ds).visibilityTimeout(Duration.ofSeconds(5)).build();
    this.once =
        Once.builder()
            .dataSource(ds)
            .transport(transport)
            .destinations(FaultRun.DESTINATION)
            .relayIdleWait(Duration.ofMillis(200))
            .build();
    this.consumer =
        once.consumer("warehouse")
            .subscribe(FaultRun.DESTINATION, FaultRun.effect())
            .workers(WORKERS)
            .idleWait(Duration.ofMillis(200))
            .build();
    this.relay = once.newRelay();
  }

  Pipeline start() {
    consumer.start();
    relay.start();
    return this;
  }

  /** A HikariCP pool as an application configures one, with a short wait for a connection. */
  static HikariDataSource pool(String url, int size) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(url);
    cfg.setMaximumPoolSize(size);
    // 1 s instead of HikariCP's 30 s: a thread that cannot get a connection comes back to the
    // engine soon, so that the engine's own pauses are what the tests measure.
    cfg.setConnectionTimeout(1_000);
    cfg.setPoolName("faults");
    return new HikariDataSource(cfg);
  }

  static void join(Thread t) {
    try {
      t.join(60_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Connections each worker thread ({@code once-warehouse-<i>}) took from {@code ds} so far. */
  static long[] workerConnections(CountingDataSource ds) {
    long[] n = new long[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
      n[i] = ds.gotOn("once-warehouse-" + i);
    }
    return n;
  }

  /**
   * Waits until every worker took at least {@code polls} more connections from {@code ds} than in
   * {@code before}: each poll, claim or batch takes one, so a worker that stayed dead or hung fails
   * this, whoever won the deliveries. A live worker polls at least every idle wait (200 ms) once
   * its pause after a failure (at most 5 s) is over: 30 s is ample.
   */
  static void awaitEveryWorkerPolls(CountingDataSource ds, long[] before, int polls) {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              long[] now = workerConnections(ds);
              for (int i = 0; i < WORKERS; i++) {
                assertThat(now[i] - before[i])
                    .as("connections worker once-warehouse-%d took since the restart", i)
                    .isGreaterThanOrEqualTo(polls);
              }
            });
  }

  /** Waits until {@code run} shows at least {@code n} effects, at most 30 s. */
  static void awaitEffects(FaultRun run, long n) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (run.effects() < n && System.nanoTime() < deadline) {
      FaultRun.sleep(Duration.ofMillis(20));
    }
  }

  @Override
  public void close() {
    relay.close();
    consumer.close();
    once.close();
    transport.close();
  }
}
