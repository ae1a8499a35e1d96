package dev.once.app.demo;

import dev.once.Consumer;
import dev.once.Handler;
import dev.once.Once;
import dev.once.OnceBuilder;
import dev.once.OnceListener;
import dev.once.spi.Transport;
import javax.sql.DataSource;

/**
 * The wiring of the warehouse scenario, shared by {@code once demo}, {@code once worker}, {@code
 * once produce} and {@code once verify}: consumer {@code warehouse} turns OrderPaid into a dispatch
 * job and a DispatchQueued event; consumer {@code notifier} turns DispatchQueued into a
 * notification; relays publish the outbox.
 */
public final class DemoPipeline {

  /** Creates a dispatch job and emits DispatchQueued, both through the consumer's transaction. */
  static final Handler WAREHOUSE =
      (tx, event) -> {
        long orderId = Long.parseLong(event.event().key());
        tx.update(
            "INSERT INTO demo_dispatch_jobs (order_id, event_id) VALUES (?, ?)",
            orderId,
            event.id().value());
        tx.publish(
            event.follow(
                "dispatch-queued",
                DemoTables.DISPATCH,
                "DispatchQueued",
                "{\"orderId\":" + orderId + "}"));
      };

  /** Records a notification through the consumer's transaction. */
  static final Handler NOTIFIER =
      (tx, event) -> {
        long orderId = Long.parseLong(event.event().key());
        tx.update(
            "INSERT INTO demo_notifications (order_id, event_id) VALUES (?, ?)",
            orderId,
            event.id().value());
      };

  private DemoPipeline() {}

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
   * Starts both consumers with {@code workers} threads each and {@code relays} relays; {@link
   * Once#close()} stops them all.
   */
  public static void start(Once once, int workers, int relays) {
    consumer(once, DemoTables.WAREHOUSE, DemoTables.ORDERS, WAREHOUSE, workers).start();
    consumer(once, DemoTables.NOTIFIER, DemoTables.DISPATCH, NOTIFIER, workers).start();
    for (int i = 0; i < relays; i++) {
      once.relay().start();
    }
  }

  private static Consumer consumer(
      Once once, String id, String destination, Handler handler, int workers) {
    return once.consumer(id).subscribe(destination, handler).workers(workers).build();
  }
}
