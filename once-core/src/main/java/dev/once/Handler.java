package dev.once;

/**
 * A consumer's business logic. It runs inside the transaction that inserted the event's marker, and
 * only in that one: make every local change through {@code tx}. Throwing rolls everything back
 * (marker included) and the delivery is retried.
 */
@FunctionalInterface
public interface Handler {
  void handle(Tx tx, ReceivedEvent event) throws Exception;
}
