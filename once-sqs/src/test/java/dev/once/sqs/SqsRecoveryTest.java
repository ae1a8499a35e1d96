package dev.once.sqs;

import dev.once.test.TestDatabase;
import dev.once.testkit.RecoveryContract;
import dev.once.testkit.TcpProxy;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;

/**
 * {@link RecoveryContract} on ElasticMQ (standard queues) and the embedded PostgreSQL. Each process
 * reaches SQS through a {@link TcpProxy} of its own; killing it closes the proxy first (its
 * connections reset, new ones refused: the endpoint is down for it), so nothing it held is given
 * back — its messages come back when their visibility timeout runs out, flagged by their receive
 * count, as after a SIGKILL. The contract's batch of 32 comes back over at least four receives (10
 * at most each); the receiver's first poll lingers until they are in ({@code ReceiverPollTest}).
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

  /**
   * The 32 messages come back over at least four receives; on a loaded machine they took longer
   * than the default 300 ms (clean-clone CI at load 36: batches [18, 10, 4]). The batch runs as
   * soon as it is full, so a longer linger costs nothing when all of them are back.
   */
  @Override
  protected Duration batchLinger() {
    return Duration.ofSeconds(1);
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
    SqsTransport.Builder b =
        configure(Sqs.transport())
            .receivesInFlight(4) // 40 at once: a prefetch of at least the contract's batch of 32
            .visibilityTimeout(Duration.ofSeconds(2))
            .requestTimeout(Duration.ofSeconds(5));
    return Worker.of(db.newPool(4), Sqs.through(Sqs.proxy(), b));
  }
}
