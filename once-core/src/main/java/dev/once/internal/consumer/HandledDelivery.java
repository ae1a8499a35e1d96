package dev.once.internal.consumer;

import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.internal.Failure;
import dev.once.spi.Delivery;

/**
 * One delivery of a batch and what came of it.
 *
 * @param attempt this delivery's attempt number (durable: the failures recorded, see {@link
 *     Attempts})
 * @param failure why the handler failed, for RETRY and DEAD; null otherwise
 * @param error what the handler threw, for a RETRY or DEAD it caused; null otherwise (what a span
 *     records as {@code error.type})
 * @param published outgoing events the handler wrote to the outbox
 * @param enqueued outgoing events the handler enqueued in the transaction (the table queue on the
 *     same data source)
 * @param undoneWhole the handler failed and its transaction could not go on without it (no
 *     savepoint was taken, or the runner refused to go back to one): the group rolls back and runs
 *     again with this as the delivery's result
 */
record HandledDelivery(
    Delivery delivery,
    ReceivedEvent event,
    Outcome outcome,
    int attempt,
    Failure failure,
    Exception error,
    int published,
    int enqueued,
    boolean undoneWhole) {

  static HandledDelivery done(Delivery d, ReceivedEvent event, Outcome outcome, int attempt) {
    return new HandledDelivery(d, event, outcome, attempt, null, null, 0, 0, false);
  }

  static HandledDelivery processed(
      Delivery d, ReceivedEvent event, Outcome outcome, int attempt, int published, int enqueued) {
    return new HandledDelivery(d, event, outcome, attempt, null, null, published, enqueued, false);
  }

  static HandledDelivery dead(Delivery d, ReceivedEvent event, int attempt, Failure failure) {
    return new HandledDelivery(d, event, Outcome.DEAD, attempt, failure, null, 0, 0, false);
  }

  /** The handler threw {@code error}: RETRY or DEAD. */
  static HandledDelivery failed(
      Delivery d, ReceivedEvent event, Outcome outcome, int attempt, Failure f, Exception error) {
    return new HandledDelivery(d, event, outcome, attempt, f, error, 0, 0, false);
  }

  /** This failure, with the whole transaction to roll back before the group runs again. */
  HandledDelivery withTransactionUndone() {
    return new HandledDelivery(delivery, event, outcome, attempt, failure, error, 0, 0, true);
  }

  String eventId() {
    return event.id().value();
  }
}
