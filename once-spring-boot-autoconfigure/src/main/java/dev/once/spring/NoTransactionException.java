package dev.once.spring;

import dev.once.EventId;
import dev.once.OnceException;

/**
 * {@link OncePublisher#publish} was called without an active Spring-managed transaction: the outbox
 * row would have committed on its own, apart from the business change it belongs to.
 */
public class NoTransactionException extends OnceException {
  private final transient EventId eventId;

  public NoTransactionException(EventId eventId) {
    super(
        "OncePublisher.publish(event "
            + eventId
            + ") needs an active Spring-managed transaction, and there is none on this thread:"
            + " call it from a @Transactional method (or inside a TransactionTemplate), so that"
            + " the event commits or rolls back with the business change");
    this.eventId = eventId;
  }

  /** The event that was not written. */
  public EventId eventId() {
    return eventId;
  }
}
