package dev.once.internal;

import dev.once.Event;
import dev.once.jdbc.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;

/**
 * Writes a dead letter in the caller's transaction. At most one open dead letter per (consumer,
 * event): a redelivery after a crash between the commit and the ack finds it there and adds none.
 */
public final class DeadLetterWriter {
  /** The consumer id of dead letters the relay parks. */
  public static final String RELAY = "(relay)";

  private final Dialect dialect;

  public DeadLetterWriter(Dialect dialect) {
    this.dialect = dialect;
  }

  /** Returns whether a new dead letter was written (false: it was already there). */
  public boolean write(
      Connection c,
      String consumerId,
      Event event,
      int attempts,
      Instant firstFailedAt,
      Failure failure,
      Instant now)
      throws SQLException {
    return dialect
        .deadLetters()
        .insertDeadLetter(
            c,
            event,
            failure.attempt(consumerId, event.id().value(), attempts, firstFailedAt, now),
            now);
  }
}
