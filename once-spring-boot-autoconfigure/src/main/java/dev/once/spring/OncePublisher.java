package dev.once.spring;

import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.PayloadCodec;
import dev.once.ReceivedEvent;
import dev.once.UnknownDestinationException;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Publishes events in the caller's Spring-managed transaction: the outbox row is written on that
 * transaction's connection, so it commits with the business change or not at all, and the relay is
 * woken after the commit. Inject it into a {@code @Transactional} service or an {@link
 * OnceHandler}.
 *
 * <pre>{@code
 * @Transactional
 * public void pay(long orderId) {
 *   orders.save(new Order(orderId, "PAID"));
 *   publisher.publish(EventId.of("order-paid", orderId), "orders", Long.toString(orderId), new OrderPaid(orderId));
 * }
 * }</pre>
 */
public class OncePublisher {
  private final Once once;
  private final Supplier<PayloadCodec> codec;

  public OncePublisher(Once once, Supplier<PayloadCodec> codec) {
    this.once = once;
    this.codec = codec;
  }

  /**
   * Writes {@code event} to the outbox in the current transaction. Returns {@code false} if an
   * event with its id is already there.
   *
   * @throws NoTransactionException if no Spring-managed transaction is active
   * @throws dev.once.UnknownDestinationException if the destination was not declared
   */
  public boolean publish(Event event) {
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      throw new NoTransactionException(event.id());
    }
    try {
      return once.inTransaction(tx -> tx.publish(event));
    } catch (UnknownDestinationException e) {
      throw inSpringTerms(e);
    }
  }

  /**
   * The same refusal, advising the Spring way to declare a destination ({@code once.destinations})
   * instead of the core's builder.
   */
  static UnknownDestinationException inSpringTerms(UnknownDestinationException e) {
    UnknownDestinationException spring =
        new UnknownDestinationException(
            e.destination(),
            new TreeSet<>(e.declared()),
            "add it to once.destinations; the destinations of @OnceHandler methods are declared by"
                + " themselves");
    spring.setStackTrace(e.getStackTrace());
    return spring;
  }

  /**
   * Publishes {@code payload} encoded by the {@link PayloadCodec} (JSON by default), with its
   * class's simple name as the event type.
   */
  public boolean publish(EventId id, String destination, String key, Object payload) {
    return publish(event(id, destination, key, payload));
  }

  /**
   * Publishes an event caused by {@code cause}, from a handler: its id is derived from the
   * consumer, the cause's id and {@code name}, so a handler that runs again writes the same id; the
   * cause's key is kept.
   */
  public boolean publishFollowing(
      ReceivedEvent cause, String name, String destination, Object payload) {
    EventId id = EventId.derive(cause.consumerId(), cause.id(), name);
    return publish(event(id, destination, cause.event().key(), payload));
  }

  private Event event(EventId id, String destination, String key, Object payload) {
    return Event.builder()
        .id(id)
        .destination(destination)
        .key(key)
        .codec(codec.get())
        .payload(payload)
        .build();
  }
}
