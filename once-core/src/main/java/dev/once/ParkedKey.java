package dev.once;

import java.time.Duration;
import java.time.Instant;

/**
 * A key an ordered consumer group parked: its head event was dead-lettered, and the key's later
 * events wait in the queue, in order, until the head is replayed or discarded ({@link
 * DeadLetters#parkedKeys}). Keys are identifiers and shown as they are, as a dead letter's key is.
 *
 * @param consumerGroup the ordered consumer that parked the key
 * @param destination the destination its events come from
 * @param key the event key
 * @param headEventId the dead-lettered event that heads the key
 * @param deadLetterId the id of the head's dead letter, as {@code once dead-letters list} prints
 *     it; 0 if there is none (a key parked by hand)
 * @param parkedAt when the head's acknowledgement parked the key
 * @param eventsBehind the key's events waiting behind the head, in the queue
 */
public record ParkedKey(
    String consumerGroup,
    String destination,
    String key,
    String headEventId,
    long deadLetterId,
    Instant parkedAt,
    long eventsBehind) {

  /** How long the key has been parked at {@code now}. */
  public Duration age(Instant now) {
    return Duration.between(parkedAt, now);
  }

  /** This key with {@code n} events behind it. */
  public ParkedKey withEventsBehind(long n) {
    return new ParkedKey(consumerGroup, destination, key, headEventId, deadLetterId, parkedAt, n);
  }
}
