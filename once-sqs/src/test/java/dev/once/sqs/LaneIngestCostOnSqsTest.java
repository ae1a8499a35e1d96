package dev.once.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Consumer;
import dev.once.OnceListener;
import dev.once.spi.Delivery;
import dev.once.sqs.OrderedRig.Passing;
import dev.once.sqs.OrderedRig.Wrapped;
import dev.once.test.TestDatabase;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * What an ordered consumer's receiver on SQS FIFO costs Once's database per batch it receives: one
 * transaction with one statement, the batch's inserts into the lane sent together (one JDBC batch
 * on PostgreSQL), and its commit; nothing else on that connection. Counted, not timed.
 */
class LaneIngestCostOnSqsTest {
  private static final int KEYS = 8;
  private static final int STEPS = 30;

  /** Totals over the connections that wrote into the lane. */
  static final class Counts {
    final AtomicLong transactions = new AtomicLong();
    final AtomicLong statements = new AtomicLong();
    final AtomicLong executions = new AtomicLong();
    final AtomicLong rows = new AtomicLong();
    final AtomicLong commits = new AtomicLong();
  }

  @Test
  void oneTransactionWithOneBatchedStatementPerBatchReceived() {
    Counts lane = new Counts();
    AtomicLong batches = new AtomicLong();
    AtomicLong received = new AtomicLong();
    try (TestDatabase db = TestDatabase.embedded();
        OrderedRig rig =
            new OrderedRig(
                db,
                true,
                new OnceListener() {},
                t ->
                    new Wrapped(
                        t,
                        r ->
                            new Passing(r) {
                              @Override
                              public List<Delivery> poll(int max, Duration wait, Duration linger)
                                  throws InterruptedException {
                                List<Delivery> got = super.poll(max, wait, linger);
                                if (!got.isEmpty()) {
                                  batches.incrementAndGet();
                                  received.addAndGet(got.size());
                                }
                                return got;
                              }
                            }),
                counting(db.dataSource(), lane))) {
      Consumer consumer = rig.consumer(rig.once, OrderedRig::record, OrderedRig.fast(3)).build();
      rig.closing.add(0, consumer);
      rig.publish(KEYS, 1, STEPS);
      consumer.start();
      rig.startRelay();
      rig.await("all effects", () -> rig.effects() == (long) KEYS * STEPS);
      rig.await("lane empty", () -> rig.count("SELECT count(*) FROM once_queue") == 0);
      consumer.close();

      String figures =
          "received "
              + received
              + " in "
              + batches
              + " batches; lane: "
              + lane.transactions
              + " transactions, "
              + lane.statements
              + " statements, "
              + lane.executions
              + " executions, "
              + lane.rows
              + " rows, "
              + lane.commits
              + " commits";
      assertThat(received.get()).as(figures).isGreaterThanOrEqualTo((long) KEYS * STEPS);
      assertThat(lane.rows.get()).as("a lane row per message received").isEqualTo(received.get());
      assertThat(batches.get())
          .as("batches, not one by one: " + figures)
          .isLessThan(received.get());
      assertThat(lane.transactions.get()).as("lane transactions").isEqualTo(batches.get());
      assertThat(lane.commits.get()).as("commits").isEqualTo(batches.get());
      assertThat(lane.statements.get()).as("statements prepared").isEqualTo(batches.get());
      assertThat(lane.executions.get())
          .as("statements sent (one JDBC batch)")
          .isEqualTo(batches.get());
    }
  }

  /** {@code dataSource}, counting what the connections that write into the lane do. */
  static DataSource counting(DataSource dataSource, Counts lane) {
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (p, m, args) -> {
              Object out = OrderedRig.invoke(m, dataSource, args);
              return out instanceof Connection c ? countingConnection(c, lane) : out;
            });
  }

  private static Connection countingConnection(Connection c, Counts lane) {
    Counts mine = new Counts();
    boolean[] laneWrite = {false};
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (p, m, args) -> {
              String name = m.getName();
              if (name.equals("close") && laneWrite[0]) {
                lane.transactions.incrementAndGet();
                lane.statements.addAndGet(mine.statements.get());
                lane.executions.addAndGet(mine.executions.get());
                lane.rows.addAndGet(mine.rows.get());
                lane.commits.addAndGet(mine.commits.get());
              }
              if (name.equals("commit")) {
                mine.commits.incrementAndGet();
              }
              Object out = OrderedRig.invoke(m, c, args);
              if (name.startsWith("prepare") || name.equals("createStatement")) {
                mine.statements.incrementAndGet();
                if (args != null && OrderedRig.isLaneWrite(args[0])) {
                  laneWrite[0] = true;
                }
                if (out instanceof PreparedStatement ps) {
                  return countingStatement(ps, mine);
                }
              }
              return out;
            });
  }

  private static PreparedStatement countingStatement(PreparedStatement ps, Counts mine) {
    return (PreparedStatement)
        Proxy.newProxyInstance(
            PreparedStatement.class.getClassLoader(),
            new Class<?>[] {PreparedStatement.class},
            (p, m, args) -> {
              String name = m.getName();
              if (name.startsWith("execute")) {
                mine.executions.incrementAndGet();
              }
              if (name.equals("addBatch")) {
                mine.rows.incrementAndGet();
              }
              return OrderedRig.invoke(m, ps, args);
            });
  }
}
