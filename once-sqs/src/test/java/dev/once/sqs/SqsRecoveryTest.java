package dev.once.sqs;

import com.zaxxer.hikari.HikariDataSource;
import dev.once.spi.Transport;
import dev.once.test.TestDatabase;
import dev.once.testkit.RecoveryContract;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

/**
 * {@link RecoveryContract} on SQS standard queues (ElasticMQ in the test JVM) and the embedded
 * PostgreSQL. A killed process's SDK client is closed under it before anything is given back, as
 * SIGKILL would: its messages come back when their visibility timeout (4 s here) runs out, with
 * {@code ApproximateReceiveCount} above 1.
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
    SqsAsyncClient client = Sqs.newClient(Sqs.endpoint());
    // 4 receives of 10 in flight: a batch of 32 that comes back fits in one poll; a visibility
    // of 4 s, renewed at 2 s left: 2 s (a renewal's call included) never ran out on a loaded
    // machine, 1 s did (a batch's messages came back while it ran)
    SqsTransport transport =
        configure(Sqs.transport())
            .client(client)
            .visibilityTimeout(Duration.ofSeconds(4))
            .receivesInFlight(4)
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
        client.close(); // first: nothing is given back, as after SIGKILL
        try {
          transport.close();
        } catch (RuntimeException closedClient) {
          // its returns fail on the closed client: the messages come back by their timeout
        }
        pool.close();
      }
    };
  }
}
