package dev.once.testkit;

import dev.once.ConfigurationException;
import dev.once.Event;
import dev.once.Handler;
import dev.once.jdbc.Dialect;
import dev.once.spi.TransactionRunner;
import dev.once.spi.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * Runs a handler through every consumer crash window and through concurrent duplicate deliveries of
 * one event, against the user's database, and checks the user's own data: exactly one effect and
 * one marker per event, whatever happened. A check fails with an {@link AssertionError} naming the
 * window (or the concurrent run), the event and the counts.
 *
 * <pre>{@code
 * HandlerKit.of(dataSource, "warehouse", handler)
 *     .events(n -> Event.of(EventId.of("order-paid", n), "orders", Long.toString(n), "OrderPaid", "{}"))
 *     .effects("SELECT count(*) FROM dispatch_jobs WHERE event_id = ?")
 *     .verify();
 * }</pre>
 *
 * The database must hold the Once schema ({@code Schema.apply}). Events travel on a table queue in
 * that database (visibility timeout 300 ms), published straight to it: the kit tests the consumer
 * side. Outgoing events the handler writes stay in the outbox.
 */
public final class HandlerKit {
  static final AtomicLong SEQUENCE = new AtomicLong(System.currentTimeMillis() * 1000);

  final DataSource dataSource;
  final String consumerId;
  final Handler handler;
  LongFunction<Event> events;
  EffectCount effects;
  final List<String> destinations = new ArrayList<>();
  int concurrency = 8;
  Duration redeliveryWait = Duration.ofSeconds(5);
  UnaryOperator<Transport> transportWrapper = t -> t;
  Dialect dialect;
  TransactionRunner transactions;

  private HandlerKit(DataSource dataSource, String consumerId, Handler handler) {
    this.dataSource = dataSource;
    this.consumerId = consumerId;
    this.handler = handler;
  }

  /** A kit for {@code handler} running as consumer {@code consumerId} on {@code dataSource}. */
  public static HandlerKit of(DataSource dataSource, String consumerId, Handler handler) {
    return new HandlerKit(dataSource, consumerId, handler);
  }

  /** Makes the event of each run; {@code n} is unique, use it in the event id. Required. */
  public HandlerKit events(LongFunction<Event> factory) {
    this.events = factory;
    return this;
  }

  /** The query that counts one event's effects (the event id is its parameter). */
  public HandlerKit effects(String sql) {
    return effects(EffectCount.sql(sql));
  }

  /** Counts one event's effects: in SQL, or anywhere else (a fake remote provider). Required. */
  public HandlerKit effects(EffectCount count) {
    this.effects = count;
    return this;
  }

  /** Destinations the handler publishes outgoing events to. */
  public HandlerKit destinations(String... names) {
    destinations.addAll(List.of(names));
    return this;
  }

  /** Deliveries of one event handed to that many workers at the same instant. Default 8. */
  public HandlerKit concurrency(int workers) {
    this.concurrency = workers;
    return this;
  }

  /** How long to wait for a crashed delivery to come back and be handled. Default 5 s. */
  public HandlerKit redeliveryWait(Duration wait) {
    this.redeliveryWait = wait;
    return this;
  }

  /** Wraps the kit's transport, e.g. to test a transport decorator of your own. */
  public HandlerKit transport(UnaryOperator<Transport> wrapper) {
    this.transportWrapper = wrapper;
    return this;
  }

  /**
   * The store's dialect, for testing a dialect of your own. Default: chosen from the data source.
   */
  public HandlerKit dialect(Dialect dialect) {
    this.dialect = dialect;
    return this;
  }

  /**
   * Who runs the consumer's transactions, e.g. a Spring application's transaction manager (see
   * once-spring-boot-autoconfigure's {@code SpringTransactions}). Default: Once's own, on the data
   * source.
   */
  public HandlerKit transactions(TransactionRunner runner) {
    this.transactions = runner;
    return this;
  }

  /** Every crash window, then the concurrent deliveries; one error listing every failure. */
  public void verify() {
    check();
    List<String> failures = new ArrayList<>(new KitRun(this).crashWindows());
    failures.addAll(new KitRun(this).concurrentDuplicates());
    fail(failures);
  }

  /** Only the crash windows, one after the other. */
  public void verifyCrashWindows() {
    check();
    fail(new KitRun(this).crashWindows());
  }

  /** Only the concurrent duplicate deliveries. */
  public void verifyConcurrentDuplicates() {
    check();
    fail(new KitRun(this).concurrentDuplicates());
  }

  private void check() {
    if (events == null) {
      throw new ConfigurationException("handlerKit.events", "is required: how to make an event");
    }
    if (effects == null) {
      throw new ConfigurationException("handlerKit.effects", "is required: how to count effects");
    }
    if (concurrency < 2 || concurrency > 64) {
      throw new ConfigurationException(
          "handlerKit.concurrency", "must be between 2 and 64, was " + concurrency);
    }
  }

  private void fail(List<String> failures) {
    if (!failures.isEmpty()) {
      throw new AssertionError(
          "handler of consumer '"
              + consumerId
              + "' is not exactly-once:\n  - "
              + String.join("\n  - ", failures));
    }
  }
}
