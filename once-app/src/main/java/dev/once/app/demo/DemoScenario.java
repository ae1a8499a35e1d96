package dev.once.app.demo;

import dev.once.Once;
import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.RetryPolicy;
import dev.once.scenario.OrderProducer;
import dev.once.scenario.ProductionGate;
import dev.once.scenario.ProviderCounts;
import dev.once.scenario.WarehouseCheck;
import dev.once.scenario.WarehousePipeline;
import dev.once.scenario.WarehouseTables;
import dev.once.scenario.WarehouseVerdict;
import dev.once.scenario.http.OrderApi;
import dev.once.scenario.http.OrderClient;
import dev.once.spi.Transport;
import dev.once.testkit.CrashPoint;
import dev.once.testkit.DuplicatingTransport;
import dev.once.testkit.FaultInjector;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.stream.LongStream;
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
  private static final EnumSet<CrashPoint> WINDOWS =
      EnumSet.of(
          CrashPoint.PRODUCER_BEFORE_COMMIT,
          CrashPoint.CONSUMER_BEFORE_TRANSACTION,
          CrashPoint.CONSUMER_AFTER_MARKER,
          CrashPoint.CONSUMER_AFTER_EFFECT_BEFORE_COMMIT,
          CrashPoint.CONSUMER_AFTER_COMMIT_BEFORE_ACK,
          CrashPoint.RELAY_AFTER_PUBLISH_BEFORE_MARK_SENT,
          CrashPoint.OPERATION_KEY_STORED_BEFORE_CALL,
          CrashPoint.OPERATION_PROVIDER_ACCEPTED_BEFORE_RESULT_STORED);

  /** With the HTTP front, the API's two windows too. */
  private static final EnumSet<CrashPoint> API_WINDOWS =
      EnumSet.of(CrashPoint.API_BEFORE_COMMIT, CrashPoint.API_AFTER_COMMIT_BEFORE_RESPONSE);

  private static final int RELAYS = 2;

  /**
   * Both consumers' retries: {@link DemoSettings#maxAttempts()} attempts (injected crashes are
   * charged like a poison's, so the count grows with the crash rate), 100 ms doubling to 1 s.
   */
  static RetryPolicy retry(DemoSettings settings) {
    return RetryPolicy.builder()
        .maxAttempts(settings.maxAttempts())
        .backoff(Duration.ofMillis(100), Duration.ofSeconds(1))
        .build();
  }

  private final DataSource dataSource;
  private final DemoSettings settings;
  private final PrintStream progress;
  private final FaultInjector faults;
  private final DuplicatingTransport transport;
  private final OutcomeCounter outcomes = new OutcomeCounter();
  private final List<OnceListener> extraListeners = new ArrayList<>();

  public DemoScenario(
      DataSource dataSource, Transport transport, DemoSettings settings, PrintStream progress) {
    this.dataSource = dataSource;
    this.settings = settings;
    this.progress = progress;
    this.faults = FaultInjector.random(settings.seed(), settings.crashRate(), windows(settings));
    this.transport = new DuplicatingTransport(transport, settings.duplicateRate(), settings.seed());
  }

  /** The crash windows a run with these settings injects at. */
  static EnumSet<CrashPoint> windows(DemoSettings settings) {
    EnumSet<CrashPoint> windows = EnumSet.copyOf(WINDOWS);
    if (settings.httpFront()) {
      windows.addAll(API_WINDOWS);
    }
    return windows;
  }

  /** Adds a listener to the demo's Once (e.g. metrics). */
  public DemoScenario listener(OnceListener listener) {
    extraListeners.add(listener);
    return this;
  }

  public DemoReport run() throws InterruptedException {
    WarehouseTables.reset(dataSource, transport);
    long start = System.nanoTime();
    boolean drained;
    ProviderCounts provider;
    HttpCounts client = null;
    try (Once once = buildOnce();
        DemoOperations operations =
            new DemoOperations(once, settings.crashRate(), settings.seed())) {
      operations.start(settings.workers());
      WarehousePipeline.start(
          once,
          settings.workers(),
          RELAYS,
          new WarehousePipeline.Extras(
              settings::isPoison, operations, retry(settings), retry(settings)));
      List<Long> orders = LongStream.rangeClosed(1, settings.events()).boxed().toList();
      if (settings.httpFront()) {
        client = placeOverHttp(once, orders);
      } else {
        long known =
            new OrderProducer(
                    once, settings.workers(), 0, ProductionGate.open(), settings::isPoison)
                .produce(orders, settings.timeout());
        if (known > 0) { // the reset clears the demo's outbox rows: only another writer could
          progress.println("once: " + OrderProducer.alreadyInOutboxNote(known));
        }
      }
      drained =
          new DemoProgress(dataSource, transport, settings.events(), progress, faults)
              .awaitDrained(start, settings.timeout());
      operations.stopWorkers();
      provider = operations.counts(settings.events(), settings::isPoison);
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    WarehouseVerdict verdict =
        WarehouseCheck.run(dataSource, transport, settings.events(), provider);
    return new DemoReport(
        settings,
        verdict,
        faults.crashes(),
        outcomes.get(Outcome.DUPLICATE),
        outcomes.get(Outcome.RETRY),
        transport.duplicated(),
        took,
        drained,
        client);
  }

  /**
   * Each purchase 1..n through {@code POST /orders}: the API hands out order numbers 1..n in commit
   * order, loses a share of its answers after the commit, and the client retries.
   */
  private HttpCounts placeOverHttp(Once once, List<Long> purchases) throws InterruptedException {
    try (OrderApi api =
        OrderApi.start(
            once,
            settings.workers(),
            settings.lostResponseRate(),
            settings.seed(),
            settings::isPoison)) {
      OrderClient client =
          settings.retryWithNewKey()
              ? OrderClient.retryingWithNewKeys(api.uri())
              : OrderClient.of(api.uri());
      progress.println(
          "  orders through POST "
              + api.uri()
              + " (Idempotency-Key per purchase; "
              + (settings.retryWithNewKey()
                  ? "BROKEN client: a new key per retry"
                  : "retries keep it")
              + ")");
      client.placeAll(purchases, settings.workers(), settings.timeout());
      return new HttpCounts(client.counts(), api.lostResponses());
    }
  }

  private Once buildOnce() {
    List<OnceListener> listeners = new ArrayList<>(List.of(faults, outcomes));
    listeners.addAll(extraListeners);
    return WarehousePipeline.once(dataSource, transport, listeners.toArray(OnceListener[]::new));
  }
}
