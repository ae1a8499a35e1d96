package dev.once.internal.consumer;

import dev.once.internal.Listeners;
import dev.once.internal.TxImpl;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.TransactionWaits;
import dev.once.spi.InDatabaseAck;
import dev.once.spi.TransactionRunner;
import dev.once.spi.Transport;
import java.sql.Connection;
import java.time.Clock;
import java.util.Optional;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * What the consumer engine reads of its {@code Once}, and nothing else.
 *
 * @param dataSource connections for the short transactions beside a batch (failures, suspects)
 * @param transactions who runs a batch's transaction (the producers' runner)
 * @param batchWaits the bounds a batch transaction sets with its markers, its first statement
 * @param newTx the handle a handler gets on the batch's connection
 * @param outboxCommitted called after a batch whose handlers wrote outbox rows committed: wakes the
 *     relays
 * @param queueCommitted called after a batch whose handlers enqueued events in its transaction
 *     committed (the table queue on the same data source): wakes the receivers
 * @param inDatabaseAck the transport's acknowledgement in the batch's transaction, where it keeps
 *     its messages in this database (the table queue on the same data source); empty: acknowledged
 *     after the commit, through the receiver
 * @param lifecycle tells the {@code Once} that the consumer starts and stops
 */
public record ConsumerContext(
    DataSource dataSource,
    Dialect dialect,
    TransactionRunner transactions,
    TransactionWaits batchWaits,
    Transport transport,
    Listeners listener,
    dev.once.Tracing tracing,
    Clock clock,
    Function<Connection, TxImpl> newTx,
    Runnable outboxCommitted,
    Runnable queueCommitted,
    Optional<InDatabaseAck> inDatabaseAck,
    Lifecycle lifecycle) {

  /** How a consumer tells its {@code Once} that it starts and stops. */
  public interface Lifecycle {
    /**
     * Before its {@code threads} start (its workers, and its key lane's worker if it has one):
     * counts what they take of the pool, and throws if the pool is too small for every engine
     * running.
     */
    void starting(dev.once.Consumer consumer, int threads);

    /** Its workers run: it is closed with its {@code Once}. */
    void started(dev.once.Consumer consumer);

    /** It stopped: what it took of the pool is free again. */
    void stopped(dev.once.Consumer consumer);
  }
}
