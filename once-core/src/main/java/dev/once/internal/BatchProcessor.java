package dev.once.internal;

import dev.once.ConsumerConfig;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.StoreException;
import dev.once.spi.Delivery;
import dev.once.spi.Receiver;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Processes one polled batch in one transaction: per delivery a savepoint, the marker insert
 * ({@code INSERT … ON CONFLICT DO NOTHING}), and — only if this transaction inserted it — the
 * handler (see {@link DeliveryRunner}). A failing handler rolls back to its savepoint (marker
 * included) and the others commit together. Failures are then recorded in a short transaction of
 * their own, and only after that are the deliveries acknowledged (processed, duplicate, stale,
 * dead-lettered) or returned with a backoff (retry).
 */
final class BatchProcessor {
  private final OnceImpl once;
  private final ConsumerConfig config;
  private final Listeners listener;
  private final Attempts attempts;
  private final DeliveryRunner runner;

  BatchProcessor(OnceImpl once, ConsumerConfig config) {
    this.once = once;
    this.config = config;
    this.listener = once.listener();
    this.attempts = new Attempts(once.dataSource(), once.dialect(), config.consumerId());
    this.runner = new DeliveryRunner(once, config, attempts);
  }

  int process(Receiver receiver) throws InterruptedException {
    List<Delivery> deliveries = receiver.poll(config.batchSize(), config.pollTimeout());
    if (deliveries.isEmpty()) {
      return 0;
    }
    long started = System.nanoTime();
    List<ReceivedEvent> events = new ArrayList<>(deliveries.size());
    for (Delivery d : deliveries) {
      events.add(
          new ReceivedEvent(config.consumerId(), d.event(), d.deliveryCount(), d.redelivered()));
    }
    listener.received(events);
    Map<String, Attempts.Known> known = attempts.load(deliveries);
    List<HandledDelivery> handled = commitBatch(deliveries, events, known);
    if (handled == null) { // the transaction hit a transient conflict: all come back soon
      receiver.nack(deliveries, config.retry().initialBackoff());
      return deliveries.size();
    }
    listener.committed(events);
    recordFailures(handled);
    acknowledge(receiver, handled, started);
    return deliveries.size();
  }

  /** Each delivery's result, or null if the whole transaction must be tried again. */
  private List<HandledDelivery> commitBatch(
      List<Delivery> deliveries, List<ReceivedEvent> events, Map<String, Attempts.Known> known) {
    Connection c = null;
    try {
      c = once.dataSource().getConnection();
      c.setAutoCommit(false);
      List<HandledDelivery> handled = new ArrayList<>(events.size());
      boolean wroteOutbox = false;
      boolean savepoints = events.size() > 1;
      Set<String> inserted = runner.insertMarkers(c, events);
      for (int i = 0; i < events.size(); i++) {
        ReceivedEvent e = events.get(i);
        String id = e.id().value();
        // the same event twice in one batch: only its first delivery acts
        boolean acts = inserted.remove(id);
        HandledDelivery h = runner.run(c, deliveries.get(i), e, known.get(id), acts, savepoints);
        handled.add(h);
        wroteOutbox |= h.published() > 0;
      }
      c.commit();
      if (wroteOutbox) {
        once.outboxCommitted();
      }
      return handled;
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

  private void recordFailures(List<HandledDelivery> handled) {
    Map<String, Failure> failures = new LinkedHashMap<>();
    Map<String, Integer> attemptOf = new LinkedHashMap<>();
    for (HandledDelivery h : handled) {
      if (h.outcome() == Outcome.RETRY) {
        failures.put(h.event().id().value(), h.failure());
        attemptOf.put(h.event().id().value(), h.attempt());
      }
    }
    attempts.record(failures, attemptOf, once.config().clock().instant());
  }

  private void acknowledge(Receiver receiver, List<HandledDelivery> handled, long started) {
    List<Delivery> done = new ArrayList<>();
    for (HandledDelivery h : handled) {
      if (h.outcome() != Outcome.RETRY) {
        done.add(h.delivery());
      }
    }
    if (!done.isEmpty()) {
      receiver.ack(done);
    }
    for (HandledDelivery h : handled) {
      if (h.outcome() == Outcome.RETRY) {
        receiver.nack(List.of(h.delivery()), config.retry().backoff(h.attempt()));
      }
    }
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    for (HandledDelivery h : handled) {
      listener.outcome(h.event(), h.outcome(), took);
    }
  }
}
