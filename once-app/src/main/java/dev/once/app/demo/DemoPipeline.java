package dev.once.app.demo;

import dev.once.Handler;
import dev.once.Once;
import dev.once.OnceBuilder;
import dev.once.OnceListener;
import dev.once.RetryPolicy;
import dev.once.spi.Transport;
import java.time.Duration;
import java.util.function.LongPredicate;
import javax.sql.DataSource;

/**
 * The wiring of the warehouse scenario, shared by {@code once demo}, {@code once worker}, {@code
 * once produce} and {@code once verify}: consumer {@code warehouse} turns OrderPaid into a dispatch
 * job and a DispatchQueued event; consumer {@code notifier} turns DispatchQueued into a
 * notification; relays publish the outbox. The demo adds {@link Extras}: poison orders, and a
 * charge and an e-mail recorded as operations.
 */
public final class DemoPipeline {

  /**
   * Kills count as delivery attempts (a death is indistinguishable from a poison message that kills
   * its worker), and the worker processes of {@code once verify} are killed often: a generous limit
   * keeps an unlucky, healthy order from being dead-lettered.
   */
  static final RetryPolicy WORKER_RETRY =
      RetryPolicy.builder()
          .maxAttempts(1000)
          .backoff(Duration.ofMillis(100), Duration.ofSeconds(1))
          .build();

  /**
   * What the demo adds on top of the plain pipeline.
   *
   * @param poison orders the warehouse refuses (they end as dead letters)
   * @param operations the charge and the e-mail, recorded in the handlers' transactions; null for
   *     none
   * @param warehouseRetry the warehouse's retry policy
   * @param notifierRetry the notifier's
   */
  record Extras(
      LongPredicate poison,
      DemoOperations operations,
      RetryPolicy warehouseRetry,
      RetryPolicy notifierRetry) {
    static final Extras NONE = new Extras(orderId -> false, null, WORKER_RETRY, WORKER_RETRY);
  }

  private DemoPipeline() {}

  /** Creates a dispatch job and emits DispatchQueued, both through the consumer's transaction. */
  static Handler warehouse(Extras extras) {
    return (tx, event) -> {
      long orderId = Long.parseLong(event.key());
      if (extras.poison().test(orderId)) {
        throw new IllegalStateException("warehouse cannot ship order " + orderId);
      }
      tx.update(
          "INSERT INTO demo_dispatch_jobs (order_id, event_id) VALUES (?, ?)",
          orderId,
          event.id().value());
      tx.publish(
          event
              .follow("dispatch-queued")
              .destination(DemoTables.DISPATCH)
              .type("DispatchQueued")
              .payload("{\"orderId\":" + orderId + "}")
              .build());
      if (extras.operations() != null) {
        extras.operations().recordCharge(tx, orderId);
      }
    };
  }

  /** Records a notification (and the e-mail, in the demo) through the consumer's transaction. */
  static Handler notifier(Extras extras) {
    return (tx, event) -> {
      long orderId = Long.parseLong(event.key());
      tx.update(
          "INSERT INTO demo_notifications (order_id, event_id) VALUES (?, ?)",
          orderId,
          event.id().value());
      if (extras.operations() != null) {
        extras.operations().recordEmail(tx, event, orderId);
      }
    };
  }

  /** A Once instance for the demo's destinations, with {@code listeners} in order. */
  public static Once once(DataSource dataSource, Transport transport, OnceListener... listeners) {
    OnceBuilder builder =
        Once.builder()
            .dataSource(dataSource)
            .transport(transport)
            .destinations(DemoTables.ORDERS, DemoTables.DISPATCH);
    for (OnceListener l : listeners) {
      builder.listener(l);
    }
    return builder.build();
  }

  /**
   * Starts both consumers with {@code workers} threads each and {@code relays} relays, without
   * poison orders or operations; {@link Once#close()} stops them all.
   */
  public static void start(Once once, int workers, int relays) {
    start(once, workers, relays, Extras.NONE);
  }

  static void start(Once once, int workers, int relays, Extras extras) {
    consumer(once, DemoTables.WAREHOUSE, DemoTables.ORDERS, warehouse(extras), workers)
        .retry(extras.warehouseRetry())
        .build()
        .start();
    consumer(once, DemoTables.NOTIFIER, DemoTables.DISPATCH, notifier(extras), workers)
        .retry(extras.notifierRetry())
        .build()
        .start();
    for (int i = 0; i < relays; i++) {
      once.newRelay().start();
    }
  }

  private static dev.once.ConsumerBuilder consumer(
      Once once, String id, String destination, Handler handler, int workers) {
    return once.consumer(id).subscribe(destination, handler).workers(workers);
  }
}
