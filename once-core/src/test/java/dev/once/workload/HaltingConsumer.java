package dev.once.workload;

import com.zaxxer.hikari.HikariDataSource;
import dev.once.Consumer;
import dev.once.Once;
import dev.once.RetryPolicy;
import dev.once.tablequeue.TableQueueTransport;
import java.sql.Connection;
import java.time.Duration;

/**
 * A consumer process whose handler records that it ran (in its own committed transaction) and then
 * kills the JVM with {@code halt(137)}, as a poison message that crashes the process would. Exits 0
 * once the queue holds nothing more for it.
 *
 * <p>Arguments: jdbc-url max-attempts
 */
public final class HaltingConsumer {
  private HaltingConsumer() {}

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
                  try (Connection c = ds.getConnection()) {
                    c.createStatement().execute("INSERT INTO runs VALUES (now())");
                  }
                  Runtime.getRuntime().halt(137);
                })
            .retry(RetryPolicy.builder().maxAttempts(Integer.parseInt(args[1])).build())
            .idleWait(Duration.ofMillis(100))
            .build();
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      consumer.runOnce();
      try (Connection c = ds.getConnection();
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
