package dev.once.spi;

import dev.once.Event;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A broker as Once needs it: five methods every transport has. What only some brokers can do is an
 * optional <b>capability</b>, an interface of its own that the transport also implements and that
 * Once finds at run time with {@link #capability}:
 *
 * <ul>
 *   <li>{@link PublishLimits} — refuses, at {@code tx.publish}, an event the broker could not
 *       carry;
 *   <li>{@link DeliveryLimit} — the broker dead-letters a message itself after n deliveries;
 *   <li>{@link RetentionCheck} — refuses a retention policy shorter than what the broker keeps;
 *   <li>{@link InDatabasePublish} — the relay can write its batch in its own transaction;
 *   <li>{@link Replay} — a dead letter can be published again for one consumer group only;
 *   <li>{@link QueueAdmin} — how many messages wait for a group, and discarding them;
 *   <li>{@link BrokerDeadLetters} — the messages the broker dead-lettered itself;
 *   <li>{@link ConnectionUse} — the connections it takes from Once's pool (the table queue), for
 *       the pool check at {@code start()};
 *   <li>{@link KeyOrder} — delivers a consumer group's messages in key order, a failing one holding
 *       back only its key (an ordered consumer needs it);
 *   <li>{@link QueueOrder} — hands a group's messages of a key out in queue order, one run at a
 *       time (an ordered consumer on a transport without {@link KeyOrder} runs them from a key lane
 *       in Once's database).
 * </ul>
 *
 * A transport that wraps another (to inject faults, count or trace) extends {@link
 * ForwardingTransport}, which carries every capability of what it wraps; the testkit's {@code
 * TransportCapabilities} checks that a wrapper dropped none.
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
 *
 * A transport is complete when its subclass of the testkit's transport contract test passes.
 */
public interface Transport extends AutoCloseable {

  /** A short name for logs and reports, e.g. {@code table-queue}. */
  String name();

  /**
   * Makes sure that events published to {@code destination} reach {@code consumerId}. Idempotent;
   * called when a consumer is built. Events published before the first declaration of a group may
   * not reach it.
   */
  void declare(String destination, String consumerId);

  /**
   * Publishes a batch and waits for the broker's confirmation of each message, at most {@code
   * confirmTimeout}. Messages with the same key must reach the broker in list order.
   */
  PublishResult publish(List<Event> batch, Duration confirmTimeout);

  /** A receiver of one consumer group on one destination. Each worker thread takes its own. */
  Receiver receiver(String destination, String consumerId);

  /**
   * This transport as {@code type} — one of the capability interfaces above, or the class of an
   * implementation ({@code capability(RabbitTransport.class)}) — if it is one; empty otherwise. In
   * the spirit of {@link java.sql.Wrapper#unwrap}: a {@link ForwardingTransport} answers for itself
   * first and then for what it wraps, so a capability survives any number of wrappers. The default
   * answers for this object only; a transport overrides it only to hide a capability that its class
   * implements but that this instance cannot use.
   */
  default <C> Optional<C> capability(Class<C> type) {
    return type.isInstance(this) ? Optional.of(type.cast(this)) : Optional.empty();
  }

  @Override
  void close();
}
