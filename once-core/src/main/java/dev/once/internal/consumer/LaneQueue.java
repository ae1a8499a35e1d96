package dev.once.internal.consumer;

import dev.once.Event;
import dev.once.StoreException;
import dev.once.internal.Conflicts;
import dev.once.internal.Wakeup;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.QueueClaim;
import dev.once.jdbc.QueueDialect;
import dev.once.jdbc.TransactionWaits;
import dev.once.spi.Delivery;
import dev.once.spi.InDatabaseAck;
import dev.once.spi.PublishResult;
import dev.once.spi.Receiver;
import dev.once.spi.Transport;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import javax.sql.DataSource;

/**
 * The key lane of an ordered consumer on a broker ({@link Lane}) as a transport of its own: the
 * group's rows of the table queue in Once's database, claimed with the ordered claim and
 * acknowledged in the batch's transaction with the ordered acknowledgement (which parks the key of
 * a dead-lettered row). Nothing is published to it: {@link Lane#divert} and a replay write its
 * rows.
 */
final class LaneQueue implements Transport, InDatabaseAck {
  /** How long a claimed row stays invisible: a worker that dies holds it this long. */
  static final Duration VISIBILITY = Duration.ofSeconds(30);

  /**
   * How often an idle receiver claims again: only a divert in this process wakes one ({@link
   * #wake}), so rows written by another process wait at most this long.
   */
  static final Duration IDLE = Duration.ofMillis(500);

  private final DataSource dataSource;
  private final Dialect dialect;
  private final QueueDialect queue;
  private final TransactionWaits waits;
  private final Clock clock;
  private final Duration idle;

  /**
   * What idle receivers wait on. A {@link #wake} wakes one of them, not all: they compete for the
   * same rows, and a receiver whose claim came back full wakes the next. Waking all of them on
   * every lane commit made 400 claims for 155 lane batches (RabbitMQ, 4 000 events of distinct
   * keys, 4 workers): the claims of the others found nothing.
   */
  private final Wakeup wakeup = new Wakeup();

  LaneQueue(ConsumerContext context) {
    this(context, IDLE);
  }

  /** With another idle wait than {@link #IDLE}: tests that count who a wake-up gets going. */
  LaneQueue(ConsumerContext context, Duration idle) {
    this.idle = idle;
    this.dataSource = context.dataSource();
    this.dialect = context.dialect();
    this.queue = context.dialect().queue();
    this.waits = context.batchWaits();
    this.clock = context.clock();
  }

  @Override
  public String name() {
    return "key-lane";
  }

  /** Binds the group to the lane, in key order: a lane row copies the mark of its binding. */
  @Override
  public void declare(String destination, String consumerId) {
    try (Connection c = dataSource.getConnection()) {
      queue.bind(c, destination, consumerId);
      queue.markInKeyOrder(c, destination, consumerId);
    } catch (SQLException e) {
      throw new StoreException("key lane of " + consumerId + " on " + destination, e);
    }
  }

  @Override
  public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
    throw new UnsupportedOperationException("nothing is published to a key lane");
  }

  @Override
  public Receiver receiver(String destination, String consumerId) {
    return new LaneReceiver(consumerId);
  }

  @Override
  public boolean acksIn(DataSource dataSource) {
    return dataSource == this.dataSource;
  }

  @Override
  public void ackInTransaction(
      Connection c, String destination, String consumerId, List<Delivery> deliveries)
      throws SQLException {
    if (!deliveries.isEmpty()) {
      queue.ackInKeyOrder(c, ids(deliveries), clock.instant());
    }
  }

  @Override
  public void close() {
    // nothing held
  }

  /** Rows were just written to the lane: an idle receiver of this process claims now. */
  void wake() {
    wakeup.signal();
  }

  private static List<Long> ids(List<Delivery> deliveries) {
    return deliveries.stream().map(d -> (Long) d.handle()).toList();
  }

  /** Runs {@code work} in one transaction, again as a whole after a transient conflict. */
  private <T> T transaction(String what, Conflicts.Work<T> work) {
    try {
      return Conflicts.inEngineTransaction(dataSource, dialect, waits, work);
    } catch (SQLException e) {
      throw new StoreException("key lane " + what, e);
    }
  }

  /** One worker's receiver of the lane. */
  private final class LaneReceiver implements Receiver {
    private final String group;

    LaneReceiver(String group) {
      this.group = group;
    }

    @Override
    public List<Delivery> poll(int max, Duration wait) throws InterruptedException {
      long deadline = System.nanoTime() + wait.toNanos();
      while (true) {
        long seen = wakeup.generation();
        Instant now = clock.instant();
        QueueClaim claim = new QueueClaim(group, now, max, now.plus(VISIBILITY));
        List<Delivery> got =
            new ArrayList<>(transaction("claim", c -> queue.claimInKeyOrder(c, claim)));
        if (got.size() >= max) {
          wakeup.signal(); // there may be more, for the next receiver
        }
        long left = deadline - System.nanoTime();
        if (!got.isEmpty() || left <= 0) {
          got.sort(Comparator.comparingLong(d -> (Long) d.handle()));
          return got;
        }
        wakeup.await(seen, Duration.ofNanos(Math.min(left, idle.toNanos())));
      }
    }

    @Override
    public void ack(List<Delivery> deliveries) {
      if (!deliveries.isEmpty()) {
        transaction("ack", c -> ackAndReturn(c, deliveries));
      }
    }

    private Void ackAndReturn(Connection c, List<Delivery> deliveries) throws SQLException {
      queue.ackInKeyOrder(c, ids(deliveries), clock.instant());
      return null;
    }

    @Override
    public void nack(List<Delivery> deliveries, Duration delay) {
      if (!deliveries.isEmpty()) {
        Instant at = clock.instant().plus(delay);
        transaction("nack", c -> run(() -> queue.nack(c, ids(deliveries), at)));
      }
    }

    @Override
    public void release(List<Delivery> deliveries) {
      if (!deliveries.isEmpty()) {
        Instant at = clock.instant();
        transaction("release", c -> run(() -> queue.release(c, ids(deliveries), at)));
      }
    }

    @Override
    public void close() {
      // unacknowledged rows come back when their claim runs out
    }
  }

  /** A statement with no result. */
  private interface Statement {
    void run() throws SQLException;
  }

  private static Void run(Statement s) throws SQLException {
    s.run();
    return null;
  }
}
