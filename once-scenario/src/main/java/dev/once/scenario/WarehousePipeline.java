package dev.once.scenario;

import dev.once.Event;
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
 * charge and an e-mail recorded as operations. {@code once bench} runs the same warehouse handler
 * into tables and destinations of its own ({@link Dispatch}).
 */
public final class WarehousePipeline {

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
  public record Extras(
      LongPredicate poison,
      RemoteActions operations,
      RetryPolicy warehouseRetry,
      RetryPolicy notifierRetry) {
    public static final Extras NONE =
        new Extras(orderId -> false, null, WORKER_RETRY, WORKER_RETRY);
  }

  /**
   * Where the warehouse writes its dispatch job (a table with {@code order_id, event_id}) and sends
   * its DispatchQueued event.
   */
  public record Dispatch(String jobsTable, String destination) {
    /**
     * The scenario's own: {@code demo_dispatch_jobs}, read by the notifier from {@code dispatch}.
     */
    public static final Dispatch SCENARIO =
        new Dispatch("demo_dispatch_jobs", WarehouseTables.DISPATCH);

    /** The statement the warehouse writes its dispatch job with: (order_id, event_id). */
    public String insertJob() {
      return "INSERT INTO " + jobsTable + " (order_id, event_id) VALUES (?, ?)";
    }
  }

  private WarehousePipeline() {}

  /** Creates a dispatch job and emits DispatchQueued, both through the consumer's transaction. */
  static Handler warehouse(Extras extras) {
    return warehouse(Dispatch.SCENARIO, extras);
  }

  /** As above, into {@code dispatch}'s table and destination. */
  public static Handler warehouse(Dispatch dispatch, Extras extras) {
    String insertJob = dispatch.insertJob();
    return (tx, event) -> {
      long orderId = Long.parseLong(event.key());
      if (extras.poison().test(orderId)) {
        throw new IllegalStateException("warehouse cannot ship order " + orderId);
      }
      tx.update(insertJob, orderId, event.id().value());
      tx.publish(dispatchQueued(event.follow(DISPATCH_QUEUED), dispatch, orderId));
      if (extras.operations() != null) {
        extras.operations().recordCharge(tx, orderId);
      }
    };
  }

  /** The name the warehouse derives its outgoing event ids with. */
  public static final String DISPATCH_QUEUED = "dispatch-queued";

  /**
   * The DispatchQueued event of an order, on {@code follow} (the incoming event's derived id and
   * key): what the warehouse writes, and what a hand-written ceiling must write to compare.
   */
  public static Event dispatchQueued(Event.Builder follow, Dispatch dispatch, long orderId) {
    return follow
        .destination(dispatch.destination())
        .type("DispatchQueued")
        .payload("{\"orderId\":" + orderId + "}")
        .build();
  }

  /** Records a notification (and the e-mail, in the demo) through the consumer's transaction. */
  static Handler notifier(Extras extras) {
    return notifier("demo_notifications", extras);
  }

  /**
   * As above, into {@code notificationsTable} (a table with {@code order_id, event_id}): {@code
   * once bench e2e} runs it as its last hop.
   */
  public static Handler notifier(String notificationsTable, Extras extras) {
    String insert = "INSERT INTO " + notificationsTable + " (order_id, event_id) VALUES (?, ?)";
    return (tx, event) -> {
      long orderId = Long.parseLong(event.key());
      tx.update(insert, orderId, event.id().value());
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
            .destinations(WarehouseTables.ORDERS, WarehouseTables.DISPATCH);
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

  public static void start(Once once, int workers, int relays, Extras extras) {
    consumer(once, WarehouseTables.WAREHOUSE, WarehouseTables.ORDERS, warehouse(extras), workers)
        .retry(extras.warehouseRetry())
        .build()
        .start();
    consumer(once, WarehouseTables.NOTIFIER, WarehouseTables.DISPATCH, notifier(extras), workers)
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
