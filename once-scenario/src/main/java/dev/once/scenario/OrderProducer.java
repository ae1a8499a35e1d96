package dev.once.scenario;

import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.testkit.SimulatedCrash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;

/**
 * Commits orders, each with its OrderPaid event, one transaction per order: the order row and the
 * outbox row commit together or not at all. Shared by {@code once demo} and {@code once produce}.
 */
public final class OrderProducer {
  private final Once once;
  private final int threads;
  private final double rate;
  private final ProductionGate gate;
  private final LongPredicate poison;
  private final AtomicLong alreadyInOutbox = new AtomicLong();

  /**
   * @param rate orders per second over all threads; 0 for as fast as the database allows
   */
  public OrderProducer(Once once, int threads, double rate) {
    this(once, threads, rate, ProductionGate.open());
  }

  /** As above; an order is produced only once {@code gate} lets its id through. */
  public OrderProducer(Once once, int threads, double rate, ProductionGate gate) {
    this(once, threads, rate, gate, orderId -> false);
  }

  /** As above; {@code poison} orders are marked so (the demo's warehouse refuses them). */
  public OrderProducer(
      Once once, int threads, double rate, ProductionGate gate, LongPredicate poison) {
    this.once = once;
    this.threads = threads;
    this.rate = rate;
    this.gate = gate;
    this.poison = poison;
  }

  /**
   * Commits every order of {@code orderIds} and returns when all are committed, with how many of
   * their events were already in the outbox (left over from an earlier run that kept its outbox):
   * those were not written again, so they are not published again.
   */
  public long produce(List<Long> orderIds, Duration timeout) throws InterruptedException {
    AtomicInteger next = new AtomicInteger();
    long start = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      running.add(pool.submit(() -> work(orderIds, next, start)));
    }
    pool.shutdown();
    if (!pool.awaitTermination(timeout.toSeconds(), TimeUnit.SECONDS)) {
      pool.shutdownNow();
    }
    for (Future<?> f : running) {
      try {
        f.get(0, TimeUnit.SECONDS);
      } catch (ExecutionException | TimeoutException e) {
        throw new IllegalStateException("producer failed: " + e.getCause(), e);
      }
    }
    return alreadyInOutbox.get();
  }

  /** What a caller says when some events were already in the outbox; null when none was. */
  public static String alreadyInOutboxNote(long count) {
    return count == 0
        ? null
        : count
            + " OrderPaid events were already in the outbox (same event id, same event): not"
            + " written or published again";
  }

  private Void work(List<Long> orderIds, AtomicInteger next, long start)
      throws InterruptedException {
    for (int i = next.getAndIncrement(); i < orderIds.size(); i = next.getAndIncrement()) {
      Pacing.awaitTurn(start, i, rate);
      gate.await(orderIds.get(i));
      produceOne(orderIds.get(i));
    }
    return null;
  }

  /**
   * Commits one order and its event. A simulated crash before the commit left nothing: the
   * "restarted" producer commits the same order again. Returns whether its event was new to the
   * outbox.
   */
  public boolean produceOne(long orderId) {
    while (true) {
      try {
        boolean written =
            once.inTransaction(
                tx -> {
                  tx.update(
                      "INSERT INTO demo_orders (order_id, amount_cents, poison) VALUES (?, ?, ?)",
                      orderId,
                      WarehouseTables.amountCents(orderId),
                      poison.test(orderId));
                  return tx.publish(
                      Event.of(
                          EventId.of("order-paid", orderId),
                          WarehouseTables.ORDERS,
                          Long.toString(orderId),
                          "OrderPaid",
                          "{\"orderId\":" + orderId + "}"));
                });
        if (!written) {
          alreadyInOutbox.incrementAndGet();
        }
        return written;
      } catch (SimulatedCrash crash) {
        // nothing of this order was committed; try it again
      }
    }
  }
}
