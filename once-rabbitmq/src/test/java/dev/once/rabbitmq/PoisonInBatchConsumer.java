package dev.once.rabbitmq;

import com.zaxxer.hikari.HikariDataSource;
import dev.once.Consumer;
import dev.once.Once;
import dev.once.RetryPolicy;
import java.time.Duration;

/**
 * A RabbitMQ consumer process (batches of 32) whose handler records an effect for every event
 * except {@code order-paid:poison}, which kills the JVM with {@code halt(137)}. Exits 0 once every
 * one of the 32 events is processed or dead-lettered.
 *
 * <p>Arguments: jdbc-url amqp-uri max-attempts
 */
public final class PoisonInBatchConsumer {
  static final String POISON = "order-paid:poison";

  private PoisonInBatchConsumer() {}

  public static void main(String[] args) throws Exception {
    HikariDataSource ds = new HikariDataSource();
    ds.setJdbcUrl(args[0]);
    ds.setMaximumPoolSize(4);
    RabbitTransport transport = RabbitTransport.create(args[1]);
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
            .retry(RetryPolicy.builder().maxAttempts(Integer.parseInt(args[2])).build())
            .batchSize(32)
            .idleWait(Duration.ofMillis(200))
            .build();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      consumer.runOnce();
      try (var c = ds.getConnection();
          var rs =
              c.createStatement()
                  .executeQuery(
                      "SELECT (SELECT count(*) FROM effects)"
                          + " + (SELECT count(*) FROM once_dead_letter)")) {
        rs.next();
        if (rs.getLong(1) >= 32) {
          System.exit(0);
        }
      }
    }
    System.exit(3);
  }
}
