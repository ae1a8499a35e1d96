package dev.once.kafka;

import dev.once.Consumer;
import dev.once.ConsumerBuilder;
import dev.once.Handler;
import dev.once.OnceListener;
import dev.once.spi.Transport;
import dev.once.test.TestDatabase;
import dev.once.testkit.KeyOrderRig;
import java.time.Duration;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * Testkit's key-order rig on Kafka: one database (PostgreSQL, or the local MariaDB), a member per
 * {@link #join}, each with a Kafka transport of its own that gives up a partition after a second
 * idle and retries a nacked record after at most two seconds.
 */
final class KafkaOrderedRig extends KeyOrderRig {
  private KafkaTransport last;

  private KafkaOrderedRig(
      TestDatabase db,
      OnceListener listener,
      UnaryOperator<Transport> wrap,
      UnaryOperator<DataSource> onceDataSource) {
    super(db.dataSource(), db.dialect(), listener, wrap, onceDataSource.apply(db.dataSource()));
    owning(db);
    join();
  }

  /**
   * A rig on a new database, the local MariaDB when {@code mariaDb} (skipped outside CI when it is
   * down), else PostgreSQL; {@code wrap} wraps each member's transport, {@code onceDataSource}
   * Once's data source.
   */
  static KafkaOrderedRig on(
      boolean mariaDb,
      OnceListener listener,
      UnaryOperator<Transport> wrap,
      UnaryOperator<DataSource> onceDataSource) {
    TestDatabase db = mariaDb ? TestDatabase.mariadb() : TestDatabase.embedded();
    try {
      return new KafkaOrderedRig(db, listener, wrap, onceDataSource);
    } catch (RuntimeException e) {
      db.close();
      throw e;
    }
  }

  static KafkaOrderedRig on(boolean mariaDb, OnceListener listener) {
    return on(mariaDb, listener, t -> t, ds -> ds);
  }

  @Override
  protected Transport newTransport() {
    last =
        closing(
            Broker.transport()
                .maxNackDelay(Duration.ofSeconds(2))
                .leaveAfterIdle(Duration.ofSeconds(1))
                .build());
    return last;
  }

  /** The Kafka transport of the member joined last. */
  KafkaTransport lastTransport() {
    return last;
  }

  /** The first member's consumer {@code warehouse}, ordered or not, built, closed with the rig. */
  Consumer consumer(Handler handler, boolean ordered, int maxAttempts) {
    ConsumerBuilder b =
        ordered
            ? consumer(once(), handler, fast(maxAttempts))
            : once()
                .consumer("warehouse")
                .subscribe(destination(), handler)
                .retry(fast(maxAttempts))
                .workers(4)
                .batchSize(8)
                .idleWait(Duration.ofMillis(50))
                .batchLinger(Duration.ZERO);
    return closing(b.build());
  }

  /** Starts the relay and {@code consumer}. */
  void start(Consumer consumer) {
    startRelay();
    consumer.start();
  }
}
