package dev.once;

import java.sql.Connection;

/**
 * The transaction a producer's or a handler's code runs in. Everything done through it — SQL on
 * {@link #connection()} and events given to {@link #publish(Event)} — commits or rolls back
 * together. Do not commit, roll back or close the connection yourself.
 */
public interface Tx {

  /** The JDBC connection of this transaction (auto-commit off). */
  Connection connection();

  /** Runs one SQL update with positional parameters and returns the row count. */
  int update(String sql, Object... params);

  /**
   * Writes the event to the outbox in this transaction. The relay publishes it after commit. An
   * event id already in the outbox is not written twice: returns {@code false} then.
   *
   * @throws UnknownDestinationException if the destination was not declared
   */
  boolean publish(Event event);
}
