package dev.once.internal;

import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.spi.Delivery;

/**
 * One delivery of a batch and what came of it.
 *
 * @param attempt this delivery's attempt number (durable: the failures recorded, see {@link
 *     Attempts})
 * @param failure why the handler failed, for RETRY and DEAD; null otherwise
 * @param published outgoing events the handler wrote to the outbox
 */
record HandledDelivery(
    Delivery delivery,
    ReceivedEvent event,
    Outcome outcome,
    int attempt,
    Failure failure,
    int published) {

  HandledDelivery(
      Delivery delivery, ReceivedEvent event, Outcome outcome, int attempt, Failure failure) {
    this(delivery, event, outcome, attempt, failure, 0);
  }
}
