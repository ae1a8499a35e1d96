package dev.once.tablequeue;

import dev.once.DatabaseTimeouts;
import dev.once.Event;
import dev.once.StoreException;
import dev.once.internal.DatabaseWaits;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.Dialects;
import dev.once.jdbc.TransactionWaits;
import dev.once.spi.ConnectionUse;
import dev.once.spi.Delivery;
import dev.once.spi.InDatabaseAck;
import dev.once.spi.InDatabasePublish;
import dev.once.spi.KeyOrder;
import dev.once.spi.PublishResult;
import dev.once.spi.QueueAdmin;
import dev.once.spi.Receiver;
import dev.once.spi.Replay;
import dev.once.spi.Transport;
import dev.once.spi.Validate;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import javax.sql.DataSource;

/**
 * A broker built on a PostgreSQL table, the embedded default. It behaves like a real broker and is
 * used as one: publishing commits queue rows in its own transaction (the commit is the confirm); a
 * receiver claims rows by making them invisible for the visibility timeout and incrementing their
 * durable delivery count; an ack deletes them; a nack makes them visible again after a delay; a
 * delivery neither acked nor nacked (the worker crashed) becomes visible again when its visibility
 * timeout runs out. Each consumer group bound to a destination gets its own copy of a message. A
 * consumer of a Once built on the same data source deletes the rows of a batch in the batch's own
 * transaction instead ({@link InDatabaseAck}): its commit is the ack.
 *
 * <p>Capabilities: {@link InDatabasePublish} (in the producer's transaction opt-in, {@link
 * Builder#enqueueInProducerTransaction}; in the relay's opt-in, {@link
 * Builder#publishInRelayTransaction}), {@link InDatabaseAck}, {@link Replay} (one row for one
 * group), {@link QueueAdmin}, {@link KeyOrder}.
 */
public final class TableQueueTransport
    implements Transport,
        InDatabasePublish,
        InDatabaseAck,
        Replay,
        QueueAdmin,
        ConnectionUse,
        KeyOrder {
  /** The data source as given: a relay on this one publishes in its own transaction. */
  private final DataSource givenDataSource;

  private final DataSource dataSource; // the given one, bounded by the network timeout

  private final QueueConnections connections;

  /** The bounds this queue adds to its claims and settlements. */
  private final TransactionWaits waits;

  private final Dialect dialect;
  private final Duration visibilityTimeout;
  private final Duration idleWait;
  private final Clock clock;

  /** How it wakes its receivers, in this process and in others. */
  private final QueueSignals signals;

  /** Whether relays, and producers, on {@link #dataSource} write to the queue in their own tx. */
  private final boolean inRelayTransaction;

  private final boolean inProducerTransaction;
  private final OrderedGroups ordered;

  private TableQueueTransport(
      DataSource dataSource,
      DatabaseWaits waits,
      Dialect dialect,
      Duration visibilityTimeout,
      Duration idleWait,
      Clock clock,
      boolean inRelayTransaction,
      boolean inProducerTransaction) {
    this.givenDataSource = dataSource;
    this.dataSource = waits.bound(dataSource);
    this.connections = new QueueConnections(this.dataSource);
    this.waits = waits.perTransaction();
    this.dialect = dialect;
    this.visibilityTimeout = visibilityTimeout;
    this.idleWait = idleWait;
    this.clock = clock;
    this.inRelayTransaction = inRelayTransaction;
    this.inProducerTransaction = inProducerTransaction;
    this.ordered = new OrderedGroups(dialect);
    this.signals = new QueueSignals(this.dataSource, dialect);
  }

  /** A table queue on {@code dataSource} with a 30 s visibility timeout. */
  public static TableQueueTransport create(DataSource dataSource) {
    return builder(dataSource).build();
  }

  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  /** Settings of a table queue. */
  public static final class Builder {
    private final DataSource dataSource;
    private Duration visibilityTimeout = Duration.ofSeconds(30);
    private Duration idleWait = Duration.ofMillis(500);
    private Clock clock = Clock.systemUTC();
    private Dialect dialect;
    private boolean publishInRelayTransaction;
    private boolean enqueueInProducerTransaction;
    private DatabaseTimeouts databaseTimeouts = DatabaseTimeouts.DEFAULT;

    private Builder(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    /**
     * How long a claimed delivery stays invisible. A worker that crashes holds its deliveries this
     * long; one that is slower than this sees them handed out again (and its twin finds them a
     * DUPLICATE). Default 30 s.
     */
    public Builder visibilityTimeout(Duration timeout) {
      this.visibilityTimeout = timeout;
      return this;
    }

    /**
     * How long an idle receiver waits, when nothing woke it, before it looks for rows again. Rows
     * published in the same process wake receivers at once; on PostgreSQL, NOTIFY wakes other
     * processes' receivers too; on MariaDB/MySQL they find new rows within this wait. Default 500
     * ms.
     */
    public Builder idleWait(Duration idleWait) {
      this.idleWait = idleWait;
      return this;
    }

    /**
     * The clock rows are made visible, claimed and hidden by, and a receiver's batch linger reads
     * quiet spells on. Default the system clock; tests move a {@code SettableClock}.
     */
    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    /**
     * Whether a relay of a Once built on this very data source writes its batch to the queue in its
     * own (asynchronously committed) transaction instead of a synchronous enqueue commit of the
     * queue's own. One commit less per relay batch, and no republished copy after a crash between
     * publish and mark-sent; but measured end to end (docs/PERFORMANCE.md, round 3 engine work) the
     * queue then fills in smaller steps, consumer batches shrink and the consumers' synchronous
     * commits per event grow, so it is off by default.
     */
    public Builder publishInRelayTransaction(boolean publishInRelayTransaction) {
      this.publishInRelayTransaction = publishInRelayTransaction;
      return this;
    }

    /**
     * Whether {@code tx.publish} of a Once built on this very data source writes the event's queue
     * rows in the producer's transaction instead of an outbox row for the relay to copy (an event
     * no group is bound to, or that a key-ordered group receives, still takes the outbox; see
     * docs/ARCHITECTURE.md). Off by default; the README's quick start turns it on.
     */
    public Builder enqueueInProducerTransaction(boolean enqueueInProducerTransaction) {
      this.enqueueInProducerTransaction = enqueueInProducerTransaction;
      return this;
    }

    /**
     * How long the queue's claims and settlements wait for the database (see {@link
     * DatabaseTimeouts}). Default {@link DatabaseTimeouts#DEFAULT}.
     */
    public Builder databaseTimeouts(DatabaseTimeouts databaseTimeouts) {
      this.databaseTimeouts = Validate.notNull("tableQueue.databaseTimeouts", databaseTimeouts);
      return this;
    }

    /** The database's dialect; by default chosen from the data source's metadata. */
    public Builder dialect(Dialect dialect) {
      this.dialect = dialect;
      return this;
    }

    public TableQueueTransport build() {
      Validate.notNull("tableQueue.dataSource", dataSource);
      Validate.positive("tableQueue.visibilityTimeout", visibilityTimeout);
      Validate.notNull("tableQueue.clock", clock);
      Validate.positive("tableQueue.idleWait", idleWait);
      Dialect chosen = dialect != null ? dialect : Dialects.forDataSource(dataSource);
      chosen.queue(); // fails now, naming the database, if its dialect has no table queue
      DatabaseWaits waits =
          DatabaseWaits.check(dataSource, chosen, databaseTimeouts, "table queue");
      return new TableQueueTransport(
          dataSource,
          waits,
          chosen,
          visibilityTimeout,
          idleWait,
          clock,
          publishInRelayTransaction,
          enqueueInProducerTransaction);
    }
  }

  @Override
  public String name() {
    return "table-queue";
  }

  @Override
  public void declare(String destination, String consumerId) {
    connections.autoCommit(
        "bind queue " + consumerId + " to " + destination,
        c -> {
          dialect.queue().bind(c, destination, consumerId);
          if (ordered.contains(destination, consumerId)) {
            dialect.queue().markInKeyOrder(c, destination, consumerId);
          }
          return null;
        });
  }

  @Override
  public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
    if (batch.isEmpty()) {
      return PublishResult.allConfirmed(0);
    }
    Instant now = clock.instant();
    try {
      int[] counts = connections.enqueue(dialect, batch, now);
      signals.otherProcesses();
      return Rows.result(batch, counts);
    } catch (SQLException e) {
      throw new StoreException("table queue publish of " + batch.size() + " events", e);
    } finally {
      signals.thisProcess();
    }
  }

  /**
   * Once's own data source with {@link Builder#publishInRelayTransaction}: the relay enqueues in
   * its own asynchronous commit (a crash that loses it loses the rows too; the outbox rows go
   * again).
   */
  @Override
  public boolean publishesIn(DataSource dataSource) {
    return inRelayTransaction && dataSource == givenDataSource;
  }

  /** True for Once's own data source when {@link Builder#enqueueInProducerTransaction} is on. */
  @Override
  public boolean publishesInProducer(DataSource dataSource) {
    return inProducerTransaction && dataSource == givenDataSource;
  }

  @Override
  public boolean publishInProducerTransaction(Connection c, Event event) throws SQLException {
    return dialect.queue().enqueueUnordered(c, event, clock.instant()) > 0;
  }

  @Override
  public PublishResult publishInTransaction(Connection c, List<Event> batch) throws SQLException {
    if (batch.isEmpty()) {
      return PublishResult.allConfirmed(0);
    }
    return Rows.result(batch, dialect.queue().enqueue(c, batch, clock.instant()));
  }

  @Override
  public void publishedInTransaction() {
    signals.committed();
  }

  /** Its own data source (the same object): a batch's rows go in the batch's transaction. */
  @Override
  public boolean acksIn(DataSource dataSource) {
    return dataSource == givenDataSource;
  }

  @Override
  public void ackInTransaction(
      Connection c, String destination, String consumerId, List<Delivery> deliveries)
      throws SQLException {
    TableQueueReceiver.ackInTransaction(
        this, dialect, ordered, c, destination, consumerId, deliveries, clock.instant(), false);
  }

  @Override // an unordered group's delete commits too, on PostgreSQL
  public void ackAndCommit(
      Connection c, String destination, String consumerId, List<Delivery> deliveries)
      throws SQLException {
    TableQueueReceiver.ackInTransaction(
        this, dialect, ordered, c, destination, consumerId, deliveries, clock.instant(), true);
  }

  @Override
  public void acknowledgedInTransaction(String destination, String group, List<Delivery> done) {
    TableQueueReceiver.committed(this, destination, group, done);
  }

  /**
   * One row for {@code consumerId} only, a parked key's head back in its place and the key
   * released, in one transaction (the replay's own in Once's database: {@link #redeliversIn}).
   */
  @Override
  public PublishResult redeliver(Event event, String consumerId, Duration confirmTimeout) {
    try {
      int written = connections.inTransaction(c -> redeliverInTransaction(c, event, consumerId));
      return Rows.result(List.of(event), new int[] {written});
    } catch (SQLException e) {
      throw new StoreException("table queue redelivery of " + event.id() + " to " + consumerId, e);
    } finally {
      redeliveredInTransaction();
    }
  }

  @Override
  public boolean redeliversIn(DataSource onceDataSource) {
    return onceDataSource == givenDataSource;
  }

  @Override
  public int redeliverInTransaction(Connection c, Event event, String consumerId)
      throws SQLException {
    return dialect.queue().enqueueFor(c, event, consumerId, clock.instant());
  }

  @Override
  public void redeliveredInTransaction() {
    signals.committed();
  }

  /** A publish writes the queue rows on a connection of its own, unless in the relay's. */
  @Override
  public int perPublish(DataSource onceDataSource) {
    return onceDataSource == givenDataSource && !inRelayTransaction ? 1 : 0;
  }

  /** Receivers wait for the queue's {@code NOTIFY} on one connection, held for good. */
  @Override
  public int heldWhileReceiving(DataSource onceDataSource) {
    return onceDataSource == givenDataSource && dialect.flavour().notifies() ? 1 : 0;
  }

  @Override
  public int notifying(DataSource onceDataSource) {
    return onceDataSource == givenDataSource && signals.notifies() ? 1 : 0;
  }

  @Override
  public Receiver receiver(String destination, String consumerId) {
    signals.listen();
    return new TableQueueReceiver(
        dataSource,
        dialect,
        waits,
        consumerId,
        visibilityTimeout,
        idleWait,
        clock,
        signals.wakeup(consumerId),
        ordered.contains(destination, consumerId),
        destination,
        this);
  }

  @Override
  public void deliverInKeyOrder(String destination, String consumerId) {
    ordered.add(destination, consumerId);
  }

  @Override
  public OptionalLong depth(String destination, String consumerId) {
    return OptionalLong.of(
        connections.autoCommit(
            "table queue depth of " + consumerId, c -> dialect.queue().depth(c, consumerId)));
  }

  @Override
  public void purge(String destination, String consumerId) {
    connections.autoCommit(
        "table queue purge of " + consumerId, c -> dialect.queue().purge(c, consumerId));
  }

  @Override
  public void close() {
    signals.close();
  }
}
