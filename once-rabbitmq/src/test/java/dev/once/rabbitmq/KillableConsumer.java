package dev.once.rabbitmq;

import com.zaxxer.hikari.HikariDataSource;
import dev.once.Consumer;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.ReceivedEvent;
import java.time.Duration;
import java.util.List;

/**
 * A consumer process for the SIGKILL test. After its batch transaction commits it prints {@code
 * COMMITTED <ids>} and stops right there, before the acknowledgement, until the test kills it.
 *
 * <p>Arguments: jdbc-url amqp-uri destination consumer-id effects-table
 */
public final class KillableConsumer {
  private KillableConsumer() {}

  public static void main(String[] args) throws Exception {
    HikariDataSource ds = new HikariDataSource();
    ds.setJdbcUrl(args[0]);
    RabbitTransport transport = RabbitTransport.create(args[1]);
    OnceListener stopAfterCommit =
        new OnceListener() {
          @Override
          public void committed(List<ReceivedEvent> events) {
            System.out.println("COMMITTED " + events.stream().map(e -> e.id().value()).toList());
            System.out.flush();
            try {
              Thread.sleep(Long.MAX_VALUE); // the test sends SIGKILL now
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        };
    Once once =
        Once.builder()
            .dataSource(ds)
            .transport(transport)
            .destinations(args[2])
            .listener(stopAfterCommit)
            .build();
    String table = args[4];
    Consumer consumer =
        once.consumer(args[3])
            .subscribe(
                args[2],
                (tx, e) -> tx.update("INSERT INTO " + table + " VALUES (?)", e.id().value()))
            .idleWait(Duration.ofMillis(200))
            .build();
    System.out.println("READY");
    System.out.flush();
    while (true) {
      consumer.runOnce();
    }
  }
}
