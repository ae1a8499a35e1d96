package dev.once.spi;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/**
 * A capability of a {@link Transport} that keeps its messages in a database (the table queue), so
 * that a consumer on that database acknowledges a batch in the batch's own transaction: the
 * deliveries that came to an end (processed, duplicate, stale, dead-lettered) are removed by the
 * transaction that inserts their markers and runs their handlers, and are gone if and only if it
 * commits. No acknowledgement follows the commit, so there is no window between the two: a crash
 * before the commit leaves the deliveries claimed (they come back when their claim runs out, their
 * markers absent), a crash after it leaves nothing to redeliver. Deliveries returned for a retry
 * are still returned after the commit, through the {@link Receiver}.
 */
public interface InDatabaseAck {

  /**
   * Whether this transport keeps its messages in the database behind {@code dataSource} and
   * acknowledges in the transactions of a consumer on it. The table queue says true for the data
   * source it was built on (the same object).
   *
   * @param dataSource the data source of the Once instance whose consumer asks
   */
  boolean acksIn(DataSource dataSource);

  /**
   * Acknowledges {@code deliveries}, handed out by a receiver of {@code consumerId} on {@code
   * destination}, as part of the caller's open transaction on {@code c} (a connection of the data
   * source for which {@link #acksIn} said true); as {@link Receiver#ack} does, but in that
   * transaction: they are acknowledged if and only if it commits.
   *
   * @param c the consumer's connection, in its batch transaction
   * @param destination the destination the receiver was made for
   * @param consumerId the consumer group the receiver was made for
   * @param deliveries deliveries of that group, none acknowledged yet
   * @throws SQLException if the statement fails; the caller rolls its transaction back
   */
  void ackInTransaction(
      Connection c, String destination, String consumerId, List<Delivery> deliveries)
      throws SQLException;

  /**
   * {@link #ackInTransaction}, called where the caller has nothing left to do in its transaction
   * and its {@code commit()} after this sends nothing when the server says no transaction is open
   * on {@code c} (Once's own transaction runner, not a framework's): the transport may commit the
   * transaction with the acknowledgement, in the same round trip (the caller's {@code commit()}
   * then finds nothing to commit). A failure of that commit is thrown as the statement's; the
   * caller rolls back. The default acknowledges only.
   *
   * @param c the consumer's connection, in its batch transaction
   * @param destination the destination the receiver was made for
   * @param consumerId the consumer group the receiver was made for
   * @param deliveries deliveries of that group, none acknowledged yet
   * @throws SQLException if a statement or the commit fails; the caller rolls its transaction back
   */
  default void ackAndCommit(
      Connection c, String destination, String consumerId, List<Delivery> deliveries)
      throws SQLException {
    ackInTransaction(c, destination, consumerId, deliveries);
  }

  /**
   * Says that the transaction of an {@link #ackInTransaction} (or {@link #ackAndCommit}) call with
   * these {@code deliveries} committed; called after that commit, by the thread that made the call.
   * The table queue then hands the rows it claimed in that transaction to its receiver's next poll;
   * where this call does not come (the transaction rolled back, or the consumer failed after the
   * commit), they are dropped and come back when their claim runs out. The default does nothing.
   *
   * @param destination the destination of the {@link #ackInTransaction} call
   * @param consumerId its consumer group
   * @param deliveries its deliveries
   */
  default void acknowledgedInTransaction(
      String destination, String consumerId, List<Delivery> deliveries) {}
}
