package dev.once.bench.e2e;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Handler;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.ReceivedEvent;
import dev.once.Relay;
import dev.once.RetryPolicy;
import dev.once.scenario.WarehousePipeline;
import dev.once.spi.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;
import java.util.function.Predicate;
import javax.sql.DataSource;

/**
 * Once as the bench runs it: producers commit a business row and an event per order; relays
 * publish; consumer {@code bench} runs the scenario's warehouse handler ({@link
 * WarehousePipeline#warehouse}: a dispatch job and a DispatchQueued event) in one transaction per
 * batch. The outgoing events go to a queue nobody reads, so the relays publish them as part of the
 * pipeline's work.
 */
final class Pipeline implements AutoCloseable {
  static final String PAYLOAD_PAD = "x".repeat(64);

  private final BenchSettings settings;
  private final Timings timings = new Timings();
  private final Once once;
  private final List<AutoCloseable> running = new ArrayList<>();
  private final List<Relay> relays = new ArrayList<>();

  Pipeline(DataSource dataSource, Transport transport, BenchSettings settings) {
    this(dataSource, transport, settings, OnceListener.NOOP);
  }

  /** {@code listener}: hears the pipeline too (the bench's rollback count). */
  Pipeline(
      DataSource dataSource, Transport transport, BenchSettings settings, OnceListener listener) {
    this.settings = settings;
    this.once =
        Once.builder()
            .dataSource(dataSource)
            .transport(transport)
            .destinations(BenchTables.IN, BenchTables.OUT)
            .relayBatchSize(settings.relayBatch())
            .listener(timings)
            .listener(listener)
            .build();
  }

  Timings timings() {
    return timings;
  }

  void startConsumer() {
    startConsumer(e -> false);
  }

  /**
   * As {@link #startConsumer()}; an event {@code poisoned} picks fails with a non-retryable error,
   * so it is dead-lettered at its first attempt.
   */
  void startConsumer(Predicate<ReceivedEvent> poisoned) {
    Handler warehouse =
        WarehousePipeline.warehouse(BenchTables.DISPATCH, WarehousePipeline.Extras.NONE);
    Consumer consumer =
        settings
            .shape(
                once.consumer(BenchTables.CONSUMER)
                    .subscribe(
                        BenchTables.IN,
                        (tx, event) -> {
                          if (poisoned.test(event)) {
                            throw new Poisoned(event.id().value());
                          }
                          warehouse.handle(tx, event);
                        })
                    .retry(RetryPolicy.builder().nonRetryable(Poisoned.class).build())
                    .workers(settings.workers())
                    .batchSize(settings.batch()))
            .build();
    running.add(consumer.start());
  }

  /** The failure of a poisoned event: never retried. */
  static final class Poisoned extends RuntimeException {
    Poisoned(String eventId) {
      super("bench event " + eventId + " is poisoned", null, false, false);
    }
  }

  void startRelays() {
    for (int i = 0; i < settings.relays(); i++) {
      relays.add(once.newRelay().start());
    }
  }

  void stopRelays() {
    relays.forEach(Relay::close);
    relays.clear();
  }

  /** One producer transaction: a business row and an event for each order in [from, to). */
  void produce(long from, long to) {
    produce(from, to, id -> null);
  }

  /**
   * As {@link #produce(long, long)}, with the event {@code also} gives for an order (none if null)
   * published after the order's own, in the same transaction.
   */
  void produce(long from, long to, LongFunction<Event> also) {
    once.inTransaction(
        tx -> {
          for (long id = from; id < to; id++) {
            tx.update(BenchTables.INSERT_ORDER, id);
            publish(tx, event(id));
            Event more = also.apply(id);
            if (more != null) {
              publish(tx, more);
            }
          }
          return null;
        });
  }

  /** Publishes {@code e} in a transaction of its own. */
  void publish(Event e) {
    once.inTransaction(
        tx -> {
          publish(tx, e);
          return null;
        });
  }

  private static void publish(dev.once.Tx tx, Event e) {
    if (!tx.publish(e)) { // a run must never measure fewer events than it says
      throw new IllegalStateException(
          "bench event "
              + e.id().value()
              + " was already in the outbox: the reset did not clear it");
    }
  }

  static Event event(long orderId) {
    return event(orderId, orderId);
  }

  /** Order {@code orderId}'s event on key {@code key} (an ordered run's: {@link KeySteps}). */
  static Event event(long orderId, long key) {
    return Event.of(
        EventId.of("bench-paid", orderId),
        BenchTables.IN,
        Long.toString(key),
        "BenchPaid",
        payload(orderId));
  }

  static String payload(long orderId) {
    return "{\"orderId\":" + orderId + ",\"pad\":\"" + PAYLOAD_PAD + "\"}";
  }

  /** Waits until {@code n} deliveries were PROCESSED; false if {@code timeoutNanos} ran out. */
  boolean awaitProcessed(long n, long timeoutNanos) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutNanos;
    while (timings.processed() < n) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(2);
    }
    return true;
  }

  @Override
  public void close() {
    stopRelays();
    for (AutoCloseable c : running) {
      try {
        c.close();
      } catch (Exception ignored) {
        // best effort: the bench is ending
      }
    }
    once.close();
  }
}
