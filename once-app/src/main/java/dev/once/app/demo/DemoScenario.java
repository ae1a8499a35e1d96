package dev.once.app.demo;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.Outcome;
import dev.once.RetryPolicy;
import dev.once.spi.Transport;
import dev.once.testkit.CrashPoint;
import dev.once.testkit.DuplicatingTransport;
import dev.once.testkit.FaultInjector;
import dev.once.testkit.SimulatedCrash;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * The warehouse scenario of the reference articles: a producer commits orders with an OrderPaid
 * event each; relays publish them; consumer {@code warehouse} creates a dispatch job, emits
 * DispatchQueued and records the order's charge in the same transaction; consumer {@code notifier}
 * records a notification and the dispatch e-mail. The charges and e-mails are performed by {@link
 * DemoOperations} at a simulated payment provider and mail relay. Crashes are injected at every
 * crash window and the transport publishes some messages twice.
 */
public final class DemoScenario {
  static final EnumSet<CrashPoint> WINDOWS =
      EnumSet.of(
          CrashPoint.PRODUCER_BEFORE_COMMIT,
          CrashPoint.CONSUMER_BEFORE_TRANSACTION,
          CrashPoint.CONSUMER_AFTER_MARKER,
          CrashPoint.CONSUMER_AFTER_EFFECT,
          CrashPoint.CONSUMER_AFTER_COMMIT,
          CrashPoint.RELAY_AFTER_PUBLISH,
          CrashPoint.OPERATION_KEY_STORED_BEFORE_CALL,
          CrashPoint.OPERATION_ACCEPTED_BEFORE_RESULT_STORED);
  private static final int RELAYS = 2;

  /**
   * Injected crashes count as attempts too (a crash is indistinguishable from a poison that kills
   * the process), so the demo allows 8: an order that is not poison would need 8 crashes in a row
   * to be dead-lettered.
   */
  static final RetryPolicy RETRY =
      RetryPolicy.builder()
          .maxAttempts(8)
          .backoff(Duration.ofMillis(100), Duration.ofSeconds(1))
          .build();

  private final DataSource dataSource;
  private final DemoSettings settings;
  private final PrintStream progress;
  private final FaultInjector faults;
  private final DuplicatingTransport transport;
  private final OutcomeCounter outcomes = new OutcomeCounter();
  private final AtomicLong produced = new AtomicLong();
  private final List<dev.once.OnceListener> extraListeners = new ArrayList<>();

  public DemoScenario(
      DataSource dataSource, Transport transport, DemoSettings settings, PrintStream progress) {
    this.dataSource = dataSource;
    this.settings = settings;
    this.progress = progress;
    this.faults = FaultInjector.random(settings.seed(), settings.crashRate(), WINDOWS);
    this.transport = new DuplicatingTransport(transport, settings.duplicateRate(), settings.seed());
  }

  /** Adds a listener to the demo's Once (e.g. metrics). */
  public DemoScenario listener(dev.once.OnceListener listener) {
    extraListeners.add(listener);
    return this;
  }

  public DemoReport run() throws InterruptedException {
    DemoTables.reset(dataSource, transport);
    long start = System.nanoTime();
    boolean drained;
    ProviderCounts provider;
    try (Once once = buildOnce();
        DemoOperations operations =
            new DemoOperations(once, settings.crashRate(), settings.seed())) {
      operations.start(settings.workers());
      warehouse(once, operations).start();
      notifier(once, operations).start();
      for (int i = 0; i < RELAYS; i++) {
        once.relay().start();
      }
      produce(once);
      drained =
          new DemoProgress(dataSource, transport, settings.events(), progress, faults)
              .awaitDrained(start, settings.timeout());
      operations.stopWorkers();
      provider = operations.counts(settings.events(), settings::isPoison);
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    DemoVerdict verdict = DemoCheck.run(dataSource, transport, settings.events(), provider);
    return new DemoReport(
        settings,
        verdict,
        faults.crashes(),
        outcomes.get(Outcome.DUPLICATE),
        outcomes.get(Outcome.RETRY),
        transport.duplicated(),
        took,
        drained);
  }

  private Once buildOnce() {
    var builder =
        Once.builder()
            .dataSource(dataSource)
            .transport(transport)
            .destinations(DemoTables.ORDERS, DemoTables.DISPATCH)
            .listener(faults)
            .listener(outcomes);
    extraListeners.forEach(builder::listener);
    return builder.build();
  }

  private Consumer warehouse(Once once, DemoOperations operations) {
    return once.consumer(DemoTables.WAREHOUSE)
        .subscribe(
            DemoTables.ORDERS,
            (tx, event) -> {
              long orderId = Long.parseLong(event.event().key());
              if (settings.isPoison(orderId)) {
                throw new IllegalStateException("warehouse cannot ship order " + orderId);
              }
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
              operations.recordCharge(tx, orderId);
            })
        .workers(settings.workers())
        .retry(RETRY)
        .build();
  }

  private Consumer notifier(Once once, DemoOperations operations) {
    return once.consumer(DemoTables.NOTIFIER)
        .subscribe(
            DemoTables.DISPATCH,
            (tx, event) -> {
              long orderId = Long.parseLong(event.event().key());
              tx.update(
                  "INSERT INTO demo_notifications (order_id, event_id) VALUES (?, ?)",
                  orderId,
                  event.id().value());
              operations.recordEmail(tx, event, orderId);
            })
        .workers(settings.workers())
        .build();
  }

  /** One transaction per order; a crash before commit leaves nothing, so the order is retried. */
  private void produce(Once once) throws InterruptedException {
    AtomicLong next = new AtomicLong(1);
    ExecutorService producers = Executors.newFixedThreadPool(settings.workers());
    List<java.util.concurrent.Future<?>> running = new ArrayList<>();
    for (int i = 0; i < settings.workers(); i++) {
      running.add(
          producers.submit(
              () -> {
                for (long id = next.getAndIncrement();
                    id <= settings.events();
                    id = next.getAndIncrement()) {
                  produceOne(once, id);
                }
              }));
    }
    producers.shutdown();
    if (!producers.awaitTermination(settings.timeout().toSeconds(), TimeUnit.SECONDS)) {
      producers.shutdownNow();
    }
    for (var f : running) {
      try {
        f.get(0, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        throw new IllegalStateException("producer failed: " + e.getCause(), e);
      }
    }
  }

  private void produceOne(Once once, long orderId) {
    while (true) {
      try {
        once.inTransaction(
            tx -> {
              tx.update(
                  "INSERT INTO demo_orders (order_id, amount_cents, poison) VALUES (?, ?, ?)",
                  orderId,
                  DemoTables.amountCents(orderId),
                  settings.isPoison(orderId));
              return tx.publish(
                  Event.of(
                      EventId.of("order-paid", orderId),
                      DemoTables.ORDERS,
                      Long.toString(orderId),
                      "OrderPaid",
                      "{\"orderId\":" + orderId + "}"));
            });
        produced.incrementAndGet();
        return;
      } catch (SimulatedCrash crash) {
        // the producer "restarts" and commits the same order again: nothing of it was committed
      }
    }
  }
}
