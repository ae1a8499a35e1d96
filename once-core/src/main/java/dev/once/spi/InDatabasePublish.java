package dev.once.spi;

import dev.once.Event;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/**
 * A capability of a {@link Transport} that keeps its messages in a database (the table queue), so
 * that a relay on that database can write its batch in the relay's own transaction: the messages
 * exist if and only if that transaction commits, and the commit is the confirm.
 *
 * <p>Such a transport takes a batch whole or not at all, through {@link Transport#publish} as well
 * (one transaction per batch; only a destination no consumer is bound to is refused, all of its
 * messages alike): a relay then publishes a key's rows of a key-ordered destination in one batch,
 * where through a broker that confirms each message on its own it publishes one per batch.
 */
public interface InDatabasePublish {

  /**
   * Whether this transport keeps its messages in the database behind {@code dataSource} and wants
   * relays on it to publish in their transaction. The table queue says true for Once's own data
   * source (the same object) when it was built with {@code publishInRelayTransaction(true)}.
   *
   * @param dataSource the data source of the Once instance whose relay asks
   */
  boolean publishesIn(DataSource dataSource);

  /**
   * Whether {@code tx.publish} of a Once on {@code dataSource} writes an event's messages itself,
   * through {@link #publishInTransaction} in the producer's (or handler's) own transaction, instead
   * of an outbox row that a relay publishes later: the messages exist if and only if that
   * transaction commits, and the relay has nothing to do for them. An event the transport does not
   * take there (no consumer is bound to its destination) is written to the outbox as before. False
   * by default; the table queue says true for Once's own data source (the same object) when it was
   * built with {@code enqueueInProducerTransaction(true)}.
   *
   * @param dataSource the data source of the Once instance whose producer asks
   */
  default boolean publishesInProducer(DataSource dataSource) {
    return false;
  }

  /**
   * Publishes a batch as part of the caller's open transaction on {@code c} (a connection of the
   * data source for which {@link #publishesIn} or {@link #publishesInProducer} said true). The
   * caller calls {@link #publishedInTransaction()} after the commit.
   *
   * @param c the caller's connection, in a transaction
   * @param batch the events, in outbox order
   * @return which messages the transport took (a refused one is a failure, as in {@link
   *     Transport#publish})
   * @throws SQLException if a statement fails; the caller rolls its transaction back
   */
  PublishResult publishInTransaction(Connection c, List<Event> batch) throws SQLException;

  /**
   * Publishes {@code event} as part of a producer's (or handler's) open transaction on {@code c} (a
   * connection of the data source for which {@link #publishesInProducer} said true) and returns
   * true; or writes nothing and returns false, and the producer writes an outbox row for the relay
   * instead: for an event no consumer is bound to, or one that a consumer receives in key order
   * (the relay keeps a key's rows in order behind one in backoff or parked). The caller calls
   * {@link #publishedInTransaction()} after the commit. False by default.
   *
   * @throws SQLException if the statement fails; the caller's transaction is rolled back
   */
  default boolean publishInProducerTransaction(Connection c, Event event) throws SQLException {
    return false;
  }

  /**
   * Called after a commit that held {@link #publishInTransaction} or {@link
   * #publishInProducerTransaction}: wakes the receivers.
   */
  void publishedInTransaction();
}
