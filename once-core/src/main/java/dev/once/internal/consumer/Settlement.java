package dev.once.internal.consumer;

import dev.once.ConsumerConfig;
import dev.once.Outcome;
import dev.once.spi.Delivery;
import dev.once.spi.InDatabaseAck;
import dev.once.spi.Receiver;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's receiver, and the one place where its deliveries are acknowledged, returned or
 * released: in a group's transaction where the transport can ({@link InDatabaseAck}: the table
 * queue on the consumer's own database), otherwise after its commit (acknowledged), after that
 * commit (returned with the retry delay), after a transient conflict (returned soon), after a crash
 * (handed back), when the worker stops (released unrun). Nothing else in the consumer calls {@code
 * ack}, {@code nack}, {@code release} or {@code ackInTransaction}.
 */
final class Settlement {
  private static final Logger log = LoggerFactory.getLogger(Settlement.class);

  private final Receiver receiver;
  private final ConsumerConfig config;

  /** Null: what came to an end is acknowledged after the commit, through the receiver. */
  private final InDatabaseAck inTransaction;

  /** Null: no key lane (see {@link Lane}). */
  private final Lane lane;

  Settlement(Receiver receiver, ConsumerConfig config, InDatabaseAck inTransaction, Lane lane) {
    this.receiver = receiver;
    this.config = config;
    this.inTransaction = inTransaction;
    this.lane = lane;
  }

  /** The next batch: at most {@code batchSize} deliveries, waiting as the consumer is set to. */
  List<Delivery> poll() throws InterruptedException {
    int max = lane == null ? config.batchSize() : lane.pollSize();
    return receiver.poll(max, config.idleWait(), config.batchLinger());
  }

  /** What the transport knows of a flagged delivery's return (see {@link Isolation}). */
  boolean cameBackCleanly(Delivery d) {
    return receiver.cameBackCleanly(d);
  }

  /**
   * In a group's transaction on {@code c}, after its handlers ran, where the transport acknowledges
   * in it: acknowledges every delivery that came to an end, in one statement that commits or rolls
   * back with the markers and the handlers' work. Elsewhere nothing: {@link #settle} acknowledges
   * after the commit. With {@code mayCommit} (the transaction has nothing left to do, and its
   * runner commits after it with nothing in between: Once's own) the transport may commit it in the
   * same round trip ({@link InDatabaseAck#ackAndCommit}).
   */
  void settleInTransaction(Connection c, List<HandledDelivery> handled, boolean mayCommit)
      throws SQLException {
    if (lane != null) {
      lane.park(c, handled);
    }
    if (inTransaction != null) {
      List<Delivery> done = ended(handled);
      if (!done.isEmpty()) {
        if (mayCommit) {
          inTransaction.ackAndCommit(c, config.destination(), config.consumerId(), done);
        } else {
          inTransaction.ackInTransaction(c, config.destination(), config.consumerId(), done);
        }
      }
    }
  }

  /**
   * As soon as a group's transaction committed (before the listener hears of it): tells the
   * transport that acknowledged in it ({@link #settleInTransaction}) that it committed.
   */
  void committedInTransaction(List<HandledDelivery> handled) {
    if (inTransaction != null) {
      List<Delivery> done = ended(handled);
      if (!done.isEmpty()) {
        inTransaction.acknowledgedInTransaction(config.destination(), config.consumerId(), done);
      }
    }
  }

  /**
   * After a group committed: acknowledges every delivery that came to an end in one call (unless
   * the transaction did, {@link #settleInTransaction}), and returns each retry with its attempt's
   * delay.
   */
  void settle(List<HandledDelivery> handled) {
    List<Delivery> done = inTransaction == null ? ended(handled) : List.of();
    if (!done.isEmpty()) {
      receiver.ack(done);
    }
    for (HandledDelivery h : handled) {
      if (h.outcome() == Outcome.RETRY) {
        receiver.nack(List.of(h.delivery()), config.retry().delay(h.attempt()));
      }
    }
  }

  /**
   * Acknowledges deliveries that do not run: diverted into the key lane (after that commit) or a
   * parked key's head, dead already ({@link Lane#divert}).
   */
  void acknowledgeUnrun(List<Delivery> deliveries) {
    if (!deliveries.isEmpty()) {
      receiver.ack(deliveries);
    }
  }

  /** The deliveries that came to an end: processed, duplicate, stale or dead-lettered. */
  private static List<Delivery> ended(List<HandledDelivery> handled) {
    List<Delivery> done = new ArrayList<>(handled.size());
    for (HandledDelivery h : handled) {
      if (h.outcome() != Outcome.RETRY) {
        done.add(h.delivery());
      }
    }
    return done;
  }

  /** A transient conflict rolled the group back: all of it comes back soon. */
  void returnSoon(List<Delivery> deliveries) {
    receiver.nack(deliveries, config.retry().backoff().initial());
  }

  /**
   * After an {@link Error}: the delivery whose run threw it ({@code culprit}, null if its attempt
   * was not counted) with the delay of {@code attempt}; {@code fresh} released unflagged; {@code
   * suspects} returned still flagged, for whoever gets them next. Best effort: what cannot be
   * handed back comes back when the receiver closes.
   */
  void handBack(Delivery culprit, int attempt, List<Delivery> fresh, List<Delivery> suspects) {
    try {
      if (culprit != null) {
        receiver.nack(List.of(culprit), config.retry().delay(attempt));
      }
      if (!fresh.isEmpty()) {
        receiver.release(fresh);
      }
      if (!suspects.isEmpty()) {
        receiver.nack(suspects, Duration.ZERO);
      }
    } catch (RuntimeException failed) {
      log.debug(
          "consumer {}: handing back after a crash failed ({}); they come back anyway",
          config.consumerId(),
          failed.toString());
    }
  }

  /**
   * A worker that stops with deliveries it kept through a database outage hands them back unrun,
   * then closes the receiver: where the transport can, without the redelivered flag that would make
   * them suspects.
   */
  void releaseAndClose(List<Delivery> held) {
    if (!held.isEmpty()) {
      try {
        receiver.release(held);
      } catch (RuntimeException ignored) {
        // the database or broker is down: they come back when their claim or channel ends
      }
    }
    close();
  }

  /** Closes the receiver: what it still holds goes back to the broker. */
  void close() {
    try {
      receiver.close();
    } catch (RuntimeException ignored) {
      // a crashed receiver may not close cleanly; the broker takes its deliveries back anyway
    }
  }
}
