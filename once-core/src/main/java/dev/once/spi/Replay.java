package dev.once.spi;

import dev.once.Event;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * A capability of a {@link Transport} that can publish to one consumer group of a destination only:
 * what a replay of that group's dead letter needs. Without it a replay is refused.
 */
public interface Replay {

  /**
   * Publishes {@code event} again for {@code consumerId} only and waits for the confirmation. No
   * other group bound to the destination may get it: their markers may be gone (retention), and a
   * second delivery would then act twice.
   */
  PublishResult redeliver(Event event, String consumerId, Duration confirmTimeout);

  /**
   * Whether this transport keeps its messages in the database behind {@code dataSource}, so that a
   * replay can redeliver in the transaction that resolves the dead letter ({@link
   * #redeliverInTransaction}): the message, the released key and the resolved dead letter then
   * commit together. False by default: a broker's message cannot join a database transaction.
   *
   * @param dataSource the data source of the Once instance that replays
   */
  default boolean redeliversIn(DataSource dataSource) {
    return false;
  }

  /**
   * Redelivers {@code event} to {@code consumerId} only, as part of the caller's open transaction
   * on {@code c} (a connection of the data source for which {@link #redeliversIn} said true). The
   * caller calls {@link #redeliveredInTransaction()} after its commit.
   *
   * @return the messages written: 0 when {@code consumerId} is not bound to the event's destination
   * @throws SQLException if a statement fails; the caller rolls its transaction back
   */
  default int redeliverInTransaction(Connection c, Event event, String consumerId)
      throws SQLException {
    throw new UnsupportedOperationException("this transport redelivers in no database transaction");
  }

  /** Called after a commit that held {@link #redeliverInTransaction}: wakes the receivers. */
  default void redeliveredInTransaction() {}
}
