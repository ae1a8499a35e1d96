package dev.once.spi;

import dev.once.Event;
import dev.once.RetentionPolicy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import javax.sql.DataSource;

/**
 * A broker as Once needs it. Implementations: the table queue in once-core, and each broker in a
 * module of its own (once-rabbitmq). A transport is complete when its subclass of the testkit's
 * transport contract test passes.
 *
 * <p>Rules every implementation keeps:
 *
 * <ul>
 *   <li>{@link #publish} reports a message as confirmed only once the broker has durably accepted
 *       it; anything else (a nack, a return, a timeout) is a failure, and the relay keeps the row.
 *   <li>The event id travels with the message unchanged and comes back as {@code
 *       Delivery.event().id()}.
 *   <li>A delivery that is not acknowledged (the consumer crashed, the receiver was closed) comes
 *       back, to this or another receiver of the same consumer group.
 * </ul>
 */
public interface Transport extends AutoCloseable {

  /** A short name for logs and reports, e.g. {@code table-queue}. */
  String name();

  /**
   * Makes sure that events published to {@code destination} reach {@code consumerGroup}.
   * Idempotent; called when a consumer is built. Events published before the first declaration of a
   * group may not reach it.
   */
  void declare(String destination, String consumerGroup);

  /**
   * Publishes a batch and waits for the broker's confirmation of each message, at most {@code
   * confirmTimeout}. Messages with the same key must reach the broker in list order.
   */
  PublishResult publish(List<Event> batch, Duration confirmTimeout);

  /**
   * Whether this transport keeps its messages in the database behind {@code dataSource}, so that
   * {@link #publishInTransaction} can write a relay's batch in the relay's own transaction. Only
   * the table queue on Once's own data source does; the default is false.
   *
   * @param dataSource the data source of the Once instance whose relay asks
   */
  default boolean publishesIn(DataSource dataSource) {
    return false;
  }

  /**
   * Publishes a batch as part of the caller's open transaction on {@code c} (a connection of the
   * data source for which {@link #publishesIn} said true): the messages exist if and only if that
   * transaction commits, so the commit is the confirm. The caller calls {@link
   * #publishedInTransaction()} after the commit. Called only where {@link #publishesIn} is true.
   *
   * @param c the caller's connection, in a transaction
   * @param batch the events, in outbox order
   * @return which messages the transport took (a refused one is a failure, as in {@link #publish})
   * @throws SQLException if a statement fails; the caller rolls its transaction back
   */
  default PublishResult publishInTransaction(Connection c, List<Event> batch) throws SQLException {
    throw new UnsupportedOperationException(name() + " cannot publish in a database transaction");
  }

  /** Called after a commit that held {@link #publishInTransaction}: wakes the receivers. */
  default void publishedInTransaction() {}

  /**
   * Refuses an event this transport could not carry (a field over the broker's own limit), with an
   * {@link dev.once.InvalidEventException} naming the field. Called by {@code tx.publish}, before
   * the outbox row is written, so that the limit is never discovered by the relay. Default: none.
   */
  default void checkPublishable(Event event) {}

  /**
   * How many deliveries of one message the broker allows before it dead-letters the message itself,
   * if it has such a limit. A consumer whose {@code maxAttempts} is not below it could never
   * dead-letter a poison message that kills its process: {@code build()} refuses it.
   */
  default java.util.OptionalInt deliveryLimit() {
    return java.util.OptionalInt.empty();
  }

  /**
   * Publishes {@code event} again for {@code consumerGroup} only — a replay of that group's dead
   * letter — and waits for the confirmation. No other group bound to the destination may get it:
   * their markers may be gone (retention), and a second delivery would then act twice. A transport
   * that cannot address one group refuses (the default), and a replay through it fails.
   */
  default PublishResult redeliver(Event event, String consumerGroup, Duration confirmTimeout) {
    throw new UnsupportedOperationException(
        name() + " cannot publish to one consumer group: replay refused");
  }

  /** A receiver of one consumer group on one destination. Each worker thread takes its own. */
  Receiver receiver(String destination, String consumerGroup);

  /**
   * How many messages wait for {@code consumerGroup} (delivered but unacknowledged ones included),
   * if the broker can tell cheaply; empty otherwise.
   */
  default OptionalLong depth(String destination, String consumerGroup) {
    return OptionalLong.empty();
  }

  /**
   * How many messages the broker itself dead-lettered for {@code consumerGroup} (RabbitMQ: the
   * group's dead-letter queue, fed by its delivery limit and by rejects), if the broker has such a
   * place; empty otherwise. Those messages are outside Once's dead letters until moved.
   */
  default OptionalLong brokerDeadLetters(String destination, String consumerGroup) {
    return OptionalLong.empty();
  }

  /**
   * A reader of the messages counted by {@link #brokerDeadLetters}, to look at them or move them
   * into Once's dead letters ({@code DeadLetters.moveFromBroker}); empty where the broker keeps no
   * dead letters of its own (the default).
   */
  default java.util.Optional<BrokerDeadLetterReader> brokerDeadLetterReader(
      String destination, String consumerGroup) {
    return java.util.Optional.empty();
  }

  /** Discards every message waiting for {@code consumerGroup}: for demos and admin tools. */
  default void purge(String destination, String consumerGroup) {
    throw new UnsupportedOperationException(name() + " cannot purge queues");
  }

  /**
   * Refuses (with a {@code ConfigurationException} naming the setting) a retention policy whose
   * markers could be deleted while this broker can still hand out their events again, e.g. a
   * redelivery horizon shorter than a Kafka topic's retention. Called by {@code
   * OnceBuilder.build()}; the default accepts every policy.
   */
  default void checkRetention(RetentionPolicy retention) {}

  @Override
  void close();
}
