package dev.once.internal.consumer;

import dev.once.internal.Listeners;
import dev.once.internal.TxImpl;
import dev.once.spi.Dialect;
import dev.once.spi.TransactionRunner;
import dev.once.spi.TransactionWaits;
import dev.once.spi.Transport;
import java.sql.Connection;
import java.time.Clock;
import java.util.function.Consumer;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * What the consumer engine reads of its {@code Once}, and nothing else.
 *
 * @param dataSource connections for the short transactions beside a batch (failures, suspects)
 * @param transactions who runs a batch's transaction (the producers' runner)
 * @param batchWaits the bounds a batch transaction sets with its markers, its first statement
 * @param newTx the handle a handler gets on the batch's connection
 * @param outboxCommitted called after a batch whose handlers published committed: wakes the relays
 * @param started registers a started consumer, closed with its {@code Once}
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
    Consumer<AutoCloseable> started) {}
