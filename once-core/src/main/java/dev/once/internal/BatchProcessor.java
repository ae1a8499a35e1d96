package dev.once.internal;

import dev.once.ConsumerConfig;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.StoreException;
import dev.once.spi.Delivery;
import dev.once.spi.Receiver;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Processes one polled batch in one transaction: per delivery a savepoint, the marker insert
 * ({@code INSERT … ON CONFLICT DO NOTHING}), and — only if this transaction inserted it — the
 * handler. A failing handler rolls back to its savepoint (marker included) and the others commit
 * together. Acknowledgements are sent only after the commit.
 */
final class BatchProcessor {
  private final OnceImpl once;
  private final ConsumerConfig config;
  private final Listeners listener;

  BatchProcessor(OnceImpl once, ConsumerConfig config) {
    this.once = once;
    this.config = config;
    this.listener = once.listener();
  }

  int process(Receiver receiver) throws InterruptedException {
    List<Delivery> deliveries = receiver.poll(config.batchSize(), config.pollTimeout());
    if (deliveries.isEmpty()) {
      return 0;
    }
    long started = System.nanoTime();
    List<ReceivedEvent> events = new ArrayList<>(deliveries.size());
    for (Delivery d : deliveries) {
      ReceivedEvent event =
          new ReceivedEvent(config.consumerId(), d.event(), d.deliveryCount(), d.redelivered());
      events.add(event);
    }
    listener.received(events);
    Outcome[] outcomes = commitBatch(events);
    if (outcomes == null) { // the transaction hit a transient conflict: all come back soon
      receiver.nack(deliveries, config.retryDelay());
      return deliveries.size();
    }
    listener.committed(events);
    acknowledge(receiver, deliveries, events, outcomes, started);
    return deliveries.size();
  }

  /** Returns each delivery's outcome, or null if the whole transaction must be tried again. */
  private Outcome[] commitBatch(List<ReceivedEvent> events) {
    Connection c = null;
    try {
      c = once.dataSource().getConnection();
      c.setAutoCommit(false);
      Outcome[] outcomes = new Outcome[events.size()];
      boolean wroteOutbox = false;
      boolean savepoints = events.size() > 1;
      for (int i = 0; i < events.size(); i++) {
        TxImpl tx = once.newTx(c);
        outcomes[i] = handleOne(c, tx, events.get(i), savepoints);
        wroteOutbox |= outcomes[i] == Outcome.PROCESSED && !tx.published().isEmpty();
      }
      if (wroteOutbox) {
        Jdbc.execute(c, once.dialect().notifyOutbox());
      }
      c.commit();
      return outcomes;
    } catch (SQLException e) {
      Jdbc.rollbackQuietly(c);
      if (once.dialect().isTransient(e)) {
        return null;
      }
      throw new StoreException("consumer " + config.consumerId() + " batch transaction", e);
    } catch (RuntimeException | Error e) {
      Jdbc.rollbackQuietly(c);
      throw e;
    } finally {
      OnceImpl.closeQuietly(c);
    }
  }

  private Outcome handleOne(Connection c, TxImpl tx, ReceivedEvent event, boolean savepoints)
      throws SQLException {
    Savepoint sp = savepoints ? c.setSavepoint() : null;
    if (!insertMarker(c, event)) {
      release(c, sp);
      return Outcome.DUPLICATE;
    }
    listener.markerInserted(event);
    try {
      config.handler().handle(tx, event);
    } catch (Exception e) {
      if (sp != null) {
        c.rollback(sp);
      } else {
        c.rollback();
      }
      listener.handlerFailed(event, e);
      return Outcome.RETRY;
    }
    listener.handled(event);
    release(c, sp);
    return Outcome.PROCESSED;
  }

  private boolean insertMarker(Connection c, ReceivedEvent event) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(once.dialect().insertMarker())) {
      ps.setString(1, config.consumerId());
      ps.setString(2, event.id().value());
      return ps.executeUpdate() == 1;
    }
  }

  private static void release(Connection c, Savepoint sp) throws SQLException {
    if (sp != null) {
      c.releaseSavepoint(sp);
    }
  }

  private void acknowledge(
      Receiver receiver,
      List<Delivery> deliveries,
      List<ReceivedEvent> events,
      Outcome[] outcomes,
      long started) {
    List<Delivery> done = new ArrayList<>();
    List<Delivery> retry = new ArrayList<>();
    int maxCount = 1;
    for (int i = 0; i < deliveries.size(); i++) {
      if (outcomes[i] == Outcome.RETRY) {
        retry.add(deliveries.get(i));
        maxCount = Math.max(maxCount, deliveries.get(i).deliveryCount());
      } else {
        done.add(deliveries.get(i));
      }
    }
    if (!done.isEmpty()) {
      receiver.ack(done);
    }
    if (!retry.isEmpty()) {
      receiver.nack(retry, retryDelay(maxCount));
    }
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    for (int i = 0; i < events.size(); i++) {
      listener.outcome(events.get(i), outcomes[i], took);
    }
  }

  /** Exponential in the delivery count, capped, with jitter so retries do not march in step. */
  Duration retryDelay(int deliveryCount) {
    long base = config.retryDelay().toMillis();
    long cap = config.maxRetryDelay().toMillis();
    long exp = base << Math.min(20, Math.max(0, deliveryCount - 1));
    long delay = Math.min(cap, exp);
    return Duration.ofMillis(delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1));
  }
}
