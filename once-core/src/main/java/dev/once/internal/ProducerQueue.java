package dev.once.internal;

import dev.once.Event;
import dev.once.spi.InDatabasePublish;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * A transport that takes a producer's events in the producer's own transaction (the table queue on
 * Once's data source, {@link InDatabasePublish#publishesInProducer}): {@code tx.publish} enqueues
 * an event's messages there instead of writing an outbox row, so that no relay copies it. Two kinds
 * of event still take the outbox: one whose destination no consumer group is bound to (the relay
 * holds it until one is, as it always did) and one of a destination a group receives in key order
 * (the relay keeps a key's rows behind one in backoff or parked, and a key's earlier rows still in
 * the outbox must not be overtaken by later ones enqueued directly).
 */
public final class ProducerQueue {
  private final InDatabasePublish queue;

  public ProducerQueue(InDatabasePublish queue) {
    this.queue = queue;
  }

  /**
   * Enqueues {@code event} in the transaction on {@code c} and returns true, or writes nothing and
   * returns false when it goes to the outbox instead.
   */
  boolean enqueue(Connection c, Event event) throws SQLException {
    return queue.publishInProducerTransaction(c, event);
  }

  /** After a commit that enqueued: wakes the receivers, of this process and of others. */
  public void committed() {
    queue.publishedInTransaction();
  }
}
