package dev.once.workload;

import com.zaxxer.hikari.HikariDataSource;
import dev.once.Consumer;
import dev.once.Once;
import dev.once.RetryPolicy;
import dev.once.tablequeue.TableQueueTransport;
import java.time.Duration;

/**
 * A consumer process (batches of 32) whose handler records an effect for every event except the
 * poison, {@code order-paid:poison}, which kills the JVM with {@code halt(137)}. Exits 0 once the
 * queue holds nothing more for it.
 *
 * <p>Arguments: jdbc-url max-attempts
 */
public final class PoisonInBatchConsumer {
  static final String POISON = "order-paid:poison";

  private PoisonInBatchConsumer() {}

  public static void main(String[] args) throws Exception {
    HikariDataSource ds = new HikariDataSource();
    ds.setJdbcUrl(args[0]);
    ds.setMaximumPoolSize(4);
    TableQueueTransport transport =
        TableQueueTransport.builder(ds).visibilityTimeout(Duration.ofMillis(300)).build();
    Once once = Once.builder().dataSource(ds).transport(transport).destinations("orders").build();
    Consumer consumer =
        once.consumer("warehouse")
            .subscribe(
                "orders",
                (tx, e) -> {
                  if (e.id().value().equals(POISON)) {
                    Runtime.getRuntime().halt(137);
                  }
                  tx.update("INSERT INTO effects VALUES (?)", e.id().value());
                })
            .retry(RetryPolicy.builder().maxAttempts(Integer.parseInt(args[1])).build())
            .batchSize(32)
            .idleWait(Duration.ofMillis(100))
            .build();
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      consumer.runOnce();
      try (var c = ds.getConnection();
          var rs = c.createStatement().executeQuery("SELECT count(*) FROM once_queue")) {
        rs.next();
        if (rs.getLong(1) == 0) {
          System.exit(0);
        }
      }
    }
    System.exit(3);
  }
}
