package dev.once.spi;

/**
 * Reads the messages a broker dead-lettered on its own for one consumer group, one at a time. A
 * message read is held by this reader (no other reader gets it) until it is acknowledged or the
 * reader is closed. Not thread-safe.
 */
public interface BrokerDeadLetterReader extends AutoCloseable {

  /** The next message, or null when none is left. */
  BrokerDeadLetter next();

  /**
   * Removes {@code message} from the broker for good. Call it only after what was made of the
   * message committed: a crash before leaves the message to be read again.
   */
  void acknowledge(BrokerDeadLetter message);

  /** Gives every message read and not acknowledged back to the broker, where it was. */
  @Override
  void close();
}
