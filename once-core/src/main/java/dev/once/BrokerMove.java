package dev.once;

/**
 * What {@link DeadLetters#moveFromBroker} did so far.
 *
 * @param moved messages that became a new open dead letter of Once
 * @param alreadyThere messages whose consumer already held an open dead letter of the same event (a
 *     second copy, or a move interrupted between its commit and the broker's acknowledgement): no
 *     row added
 * @param malformed of both, the messages that could not be decoded into an event (dead-lettered as
 *     {@code dev.once.MalformedMessage} under their stand-in id)
 */
public record BrokerMove(long moved, long alreadyThere, long malformed) {

  /** Messages taken off the broker: {@code moved + alreadyThere}. */
  public long taken() {
    return moved + alreadyThere;
  }
}
