package dev.once.sqs;

import com.zaxxer.hikari.HikariDataSource;
import dev.once.spi.Transport;
import dev.once.test.TestDatabase;
import dev.once.testkit.RecoveryContract;
import dev.once.testkit.TcpProxy;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

/**
 * {@link RecoveryContract} on ElasticMQ (standard queues) and the embedded PostgreSQL. Each process
 * reaches SQS through a {@link TcpProxy} of its own; killing it resets its connections and closes
 * the proxy first (the endpoint is gone for it: connections refused), so nothing it held is given
 * back — its messages come back when their visibility timeout runs out, flagged by their receive
 * count, as after a SIGKILL.
 */
class SqsRecoveryTest extends RecoveryContract {
  private static TestDatabase db;

  @AfterAll
  static void drop() {
    if (db != null) {
      db.close();
      db = null;
    }
  }

  /** Standard queues here; FIFO in the subclass. */
  SqsTransport.Builder configure(SqsTransport.Builder b) {
    return b;
  }

  @Override
  protected DataSource dataSource() {
    if (db == null) {
      db = TestDatabase.embedded();
    }
    return db.dataSource();
  }

  @Override
  protected Worker newWorker() {
    dataSource();
    HikariDataSource pool = db.newPool(4);
    TcpProxy proxy = Sqs.proxy();
    SqsAsyncClient client = Sqs.newClient(Sqs.via(proxy));
    SqsTransport transport =
        configure(Sqs.transport())
            .client(client)
            .receivesInFlight(4) // 40 at once: a prefetch of at least the contract's batch of 32
            .visibilityTimeout(Duration.ofSeconds(2))
            .requestTimeout(Duration.ofSeconds(5))
            .build();
    return new Worker() {
      @Override
      public DataSource dataSource() {
        return pool;
      }

      @Override
      public Transport transport() {
        return transport;
      }

      @Override
      public void kill() {
        proxy.close(); // SQS is gone for this process: what it holds is not given back
        transport.close();
        client.close();
        pool.close();
      }
    };
  }
}
