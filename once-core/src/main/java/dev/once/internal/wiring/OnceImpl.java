package dev.once.internal.wiring;

import dev.once.Consumer;
import dev.once.ConsumerConfig;
import dev.once.DatabaseTimeouts;
import dev.once.DeadLetters;
import dev.once.Once;
import dev.once.OnceConfig;
import dev.once.OnceException;
import dev.once.OnceListener;
import dev.once.Operations;
import dev.once.OperationsConfig;
import dev.once.Relay;
import dev.once.StoreException;
import dev.once.Tracing;
import dev.once.Tx;
import dev.once.TxWork;
import dev.once.WorkloadStatus;
import dev.once.internal.DataSourceTransactions;
import dev.once.internal.DatabaseWaits;
import dev.once.internal.DeadLetterStore;
import dev.once.internal.HeldStatements;
import dev.once.internal.Listeners;
import dev.once.internal.PoolNeeds;
import dev.once.internal.PoolSize;
import dev.once.internal.ProducerQueue;
import dev.once.internal.TxImpl;
import dev.once.internal.Wakeup;
import dev.once.internal.consumer.ConsumerContext;
import dev.once.internal.consumer.ConsumerImpl;
import dev.once.internal.operations.OperationsContext;
import dev.once.internal.operations.OperationsImpl;
import dev.once.internal.postgres.PostgresListener;
import dev.once.internal.postgres.PostgresNotifier;
import dev.once.internal.relay.RelayContext;
import dev.once.internal.relay.RelayImpl;
import dev.once.internal.requests.RequestKeysContext;
import dev.once.internal.requests.RequestKeysImpl;
import dev.once.internal.retention.RetentionContext;
import dev.once.internal.retention.RetentionImpl;
import dev.once.internal.schema.SchemaCheck;
import dev.once.jdbc.Channel;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.Sql;
import dev.once.spi.ConnectionUse;
import dev.once.spi.InDatabaseAck;
import dev.once.spi.InDatabasePublish;
import dev.once.spi.PublishLimits;
import dev.once.spi.TransactionRunner;
import dev.once.spi.Transport;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/** The one {@link Once} implementation: wires the store, the transport and the engines. */
public final class OnceImpl implements Once {
  /** The data source as given: what a transport that publishes in it compares with. */
  private final DataSource givenDataSource;

  /** The given one, its connections bounded by the network timeout. */
  private final DataSource dataSource;

  private final DatabaseWaits waits;
  private final Transport transport;

  /** The transport's publish limits, null if it has none; looked up once, checked per publish. */
  private final PublishLimits publishLimits;

  private final Dialect dialect;

  /** What {@code tx.update} runs its statements with: one for every transaction. */
  private final Sql statements;

  /** The producer transactions' statements, held on the pool's connections between them. */
  private final HeldStatements held = new HeldStatements();

  private final TransactionRunner transactions;
  private final OnceConfig config;
  private final Listeners listener;
  private final Tracing tracing;
  private final Wakeup outboxWakeup = new Wakeup();
  private final AtomicInteger runningRelays = new AtomicInteger();
  private final Engines engines;
  private final ConsumerChecks consumerChecks;
  private AutoCloseable outboxListener;

  /** Where producers enqueue their events themselves (the table queue here); null: the outbox. */
  private final ProducerQueue producerQueue;

  /** Null where the database cannot wake other processes: their relays find the rows by polling. */
  private final PostgresNotifier outboxNotifier;

  /** Token in its outbox notifications; its listener skips them: its relays were woken directly. */
  private final String sender = PostgresNotifier.newSender();

  public OnceImpl(
      DataSource dataSource,
      Transport transport,
      Dialect dialect,
      TransactionRunner transactions,
      OnceConfig config,
      List<OnceListener> listeners,
      Tracing tracing,
      DatabaseTimeouts timeouts) {
    SchemaCheck.require(dataSource, dialect);
    this.tracing = tracing;
    this.givenDataSource = dataSource;
    this.waits = DatabaseWaits.check(dataSource, dialect, timeouts, "once");
    this.dataSource = waits.bound(dataSource);
    // the default runner bounds its connections and puts them back itself, on the pool as given
    this.transactions =
        transactions instanceof DataSourceTransactions
            ? new DataSourceTransactions(dataSource, waits)
            : waits.bound(transactions);
    this.transport = transport;
    this.consumerChecks = new ConsumerChecks(transport, config, this.dataSource, dialect);
    this.publishLimits = transport.capability(PublishLimits.class).orElse(null);
    this.dialect = dialect;
    this.statements = new Sql(dialect.flavour());
    this.config = config;
    this.engines =
        new Engines(
            new PoolNeeds(() -> PoolSize.of(dataSource)),
            transport.capability(ConnectionUse.class).orElse(null),
            dataSource,
            dialect.flavour().notifies());
    this.listener = new Listeners(listeners);
    this.producerQueue =
        transport
            .capability(InDatabasePublish.class)
            .filter(p -> p.publishesInProducer(dataSource))
            .map(ProducerQueue::new)
            .orElse(null);
    this.outboxNotifier =
        dialect.flavour().notifies()
            ? new PostgresNotifier(
                this.dataSource,
                c -> dialect.flavour().notify(c, Channel.OUTBOX, sender),
                PostgresListener::anybody,
                "outbox")
            : null;
  }

  @Override
  public <T> T inTransaction(TxWork<T> work) {
    ProducerTransaction<T> producer = new ProducerTransaction<>(work);
    try {
      return transactions.inTransaction(producer, producer);
    } catch (SQLException e) {
      throw new StoreException("producer transaction", e);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new OnceException("producer transaction failed: " + e, e);
    }
  }

  /**
   * One producer transaction: its work on the runner's connection, and what follows its commit. One
   * object per transaction, where a holder array and two capturing lambdas were three.
   */
  private final class ProducerTransaction<T> implements TransactionRunner.Work<T>, Runnable {
    private final TxWork<T> work;
    private TxImpl tx;

    ProducerTransaction(TxWork<T> work) {
      this.work = work;
    }

    @Override
    public T run(Connection c) throws Exception {
      tx = newTx(c);
      tx.carryNotifications(runningRelays.get() == 0 ? outboxNotifier : null, sender);
      tx.holdStatements(held.on(c));
      T result = work.run(tx);
      listener.beforeProducerCommit(tx.published());
      return result;
    }

    /** After the commit. */
    @Override
    public void run() {
      if (tx.notice() >= 0) { // it carried the notification: no other to send
        outboxWakeup.signal();
        outboxNotifier.carried(tx.notice());
      } else if (tx.outboxRows() > 0) {
        outboxCommitted();
      }
      if (tx.enqueued() > 0) {
        producerQueue.committed();
      }
      listener.producerCommitted(tx.published());
    }
  }

  @Override
  public Tx join(Connection connection) {
    return newTx(connection);
  }

  TxImpl newTx(Connection c) {
    return new TxImpl(
        c,
        dialect,
        config.destinations(),
        config.partitions(),
        publishLimits,
        tracing,
        producerQueue,
        statements);
  }

  /** The tracing hook ({@link Tracing#NONE} when off). */
  public Tracing tracing() {
    return tracing;
  }

  @Override
  public Relay newRelay() {
    return new RelayImpl(
        new RelayContext(
            config,
            dialect,
            dataSource,
            transport,
            transport
                .capability(InDatabasePublish.class)
                .filter(p -> p.publishesIn(givenDataSource))
                .orElse(null),
            publishLimits,
            tracing,
            listener,
            waits.perTransactionIdleUpTo(config.confirmTimeout()),
            engines.extraPerPublish(),
            runningRelays,
            this::outboxWakeup,
            consumerChecks.keyOrdered(),
            engines));
  }

  @Override
  public dev.once.Retention newRetention() {
    return new RetentionImpl(
        new RetentionContext(dataSource, dialect, config.retention(), config.clock(), engines));
  }

  @Override
  public Consumer consumer(ConsumerConfig consumerConfig) {
    consumerChecks.check(consumerConfig);
    return new ConsumerImpl(consumerContext(consumerConfig), consumerConfig);
  }

  /** What a consumer reads of this instance. */
  private ConsumerContext consumerContext(ConsumerConfig c) {
    return new ConsumerContext(
        dataSource,
        dialect,
        transactions,
        waits.perTransaction(),
        transport,
        listener,
        tracing,
        config.clock(),
        this::newTx,
        this::outboxCommitted,
        this::queueCommitted,
        transport.capability(InDatabaseAck.class).filter(a -> a.acksIn(givenDataSource)),
        new ConsumerContext.Lifecycle() {
          @Override
          public void starting(Consumer consumer, int threads) {
            String workers = c.workers() + (c.workers() == 1 ? " worker" : " workers");
            engines.starting(
                consumer,
                new PoolNeeds.Need(
                    "consumer "
                        + c.consumerId()
                        + " ("
                        + workers
                        + (threads > c.workers() ? " and its key lane's)" : ")"),
                    threads,
                    0,
                    0));
          }

          @Override
          public void started(Consumer consumer) {
            engines.started(consumer);
          }

          @Override
          public void stopped(Consumer consumer) {
            engines.stopped(consumer);
          }
        });
  }

  @Override
  public Operations operations(OperationsConfig operationsConfig) {
    return new OperationsImpl(
        new OperationsContext(
            dataSource, dialect.operations(), config.clock(), listener, tracing, engines),
        operationsConfig);
  }

  @Override
  public dev.once.RequestKeys requestKeys(dev.once.RequestKeysConfig requestKeysConfig) {
    return new RequestKeysImpl(
        new RequestKeysContext(
            dataSource,
            dialect.requestKeys(),
            dialect.status(),
            config.clock(),
            listener,
            this::inTransaction,
            engines),
        requestKeysConfig);
  }

  @Override
  public DeadLetters deadLetters() {
    return new DeadLetterStore(
        dataSource, transport, dialect, config.clock(), config.retention().replayHorizon());
  }

  @Override
  public WorkloadStatus status() {
    return WorkloadStatus.read(dataSource, dialect, config.clock().instant());
  }

  @Override
  public OnceConfig config() {
    return config;
  }

  /** The outbox wake-up of this instance's relays; its listener starts with the first relay. */
  private synchronized Wakeup outboxWakeup() {
    if (outboxListener == null) {
      outboxListener =
          dialect.flavour().notifies()
              ? dialect.flavour().listen(dataSource, Channel.OUTBOX, sender, outboxWakeup::signal)
              : () -> {};
      engines.started(outboxListener);
    }
    return outboxWakeup;
  }

  /**
   * Outbox rows were committed: a relay of this process looks at once. Relays of other processes
   * are told by a notification only when this process runs none (producers alone, e.g. an API with
   * its relays in a worker): where one runs, it publishes the rows, and a notification per commit
   * (a transaction on the pool and a wake-up of every listening backend, 400 a second at 400 orders
   * a second) bought nothing but CPU; the other processes' relays still find rows at their next
   * poll, and a busy relay does not wait at all.
   */
  void outboxCommitted() {
    outboxWakeup.signal();
    if (outboxNotifier != null && runningRelays.get() == 0) {
      outboxNotifier.signal();
    }
  }

  /** Queue rows were committed by a producer or a handler: wakes the receivers. */
  void queueCommitted() {
    if (producerQueue != null) {
      producerQueue.committed();
    }
  }

  @Override
  public void close() {
    held.close();
    if (outboxNotifier != null) {
      outboxNotifier.close();
    }
    engines.closeAll();
  }
}
