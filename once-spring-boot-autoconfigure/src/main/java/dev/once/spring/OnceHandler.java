package dev.once.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a public bean method as the handler of the events published to {@link #destination()} for
 * consumer {@link #consumer()}. Once calls it inside a transaction of the application's transaction
 * manager, after inserting the event's inbox marker on that transaction's connection: whatever the
 * method writes through {@code JdbcTemplate}, {@code JdbcClient} or a JPA repository commits with
 * the marker, or rolls back with it when the method throws (then the event is retried, and
 * dead-lettered when its attempts are used up). The delivery is acknowledged after the commit.
 *
 * <p>Parameters, in any order, each optional: the payload as a typed object (decoded by the {@link
 * dev.once.PayloadCodec}; one that does not decode is a dead letter at once), {@code String} (the
 * payload as UTF-8 text) or {@code byte[]}; {@link dev.once.ReceivedEvent}; {@link dev.once.Event};
 * {@link dev.once.Tx} (for {@code applyIfNewer}, operations, SQL on the connection).
 *
 * <pre>{@code
 * @OnceHandler(consumer = "warehouse", destination = "orders")
 * public void on(OrderPaid paid, ReceivedEvent event) {
 *   jobs.save(new DispatchJob(paid.orderId(), event.id().value()));
 * }
 * }</pre>
 *
 * Several methods may handle one consumer's destination: each is called in turn, in one
 * transaction, for the event types it accepts.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface OnceHandler {

  /** The consumer id: the first half of the inbox key. */
  String consumer();

  /** The destination the consumer subscribes to; it is declared to Once automatically. */
  String destination();

  /** Event types ({@code Event.type()}) this method handles; empty means all. */
  String[] types() default {};
}
