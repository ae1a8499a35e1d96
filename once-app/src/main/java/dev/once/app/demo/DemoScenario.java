package dev.once.app.demo;

import dev.once.Once;
import dev.once.Outcome;
import dev.once.spi.Transport;
import dev.once.testkit.CrashPoint;
import dev.once.testkit.DuplicatingTransport;
import dev.once.testkit.FaultInjector;
import java.io.PrintStream;
import java.time.Duration;
import java.util.EnumSet;
import java.util.stream.LongStream;
import javax.sql.DataSource;

/**
 * The warehouse scenario of the reference articles: a producer commits orders with an OrderPaid
 * event each; relays publish them; consumer {@code warehouse} creates a dispatch job and emits
 * DispatchQueued in the same transaction; consumer {@code notifier} records a notification. Crashes
 * are injected at every crash window and the transport publishes some messages twice.
 */
public final class DemoScenario {
  static final EnumSet<CrashPoint> WINDOWS =
      EnumSet.of(
          CrashPoint.PRODUCER_BEFORE_COMMIT,
          CrashPoint.CONSUMER_BEFORE_TRANSACTION,
          CrashPoint.CONSUMER_AFTER_MARKER,
          CrashPoint.CONSUMER_AFTER_EFFECT,
          CrashPoint.CONSUMER_AFTER_COMMIT,
          CrashPoint.RELAY_AFTER_PUBLISH);
  private static final int RELAYS = 2;

  private final DataSource dataSource;
  private final DemoSettings settings;
  private final PrintStream progress;
  private final FaultInjector faults;
  private final DuplicatingTransport transport;
  private final OutcomeCounter outcomes = new OutcomeCounter();

  public DemoScenario(
      DataSource dataSource, Transport transport, DemoSettings settings, PrintStream progress) {
    this.dataSource = dataSource;
    this.settings = settings;
    this.progress = progress;
    this.faults = FaultInjector.random(settings.seed(), settings.crashRate(), WINDOWS);
    this.transport = new DuplicatingTransport(transport, settings.duplicateRate(), settings.seed());
  }

  public DemoReport run() throws InterruptedException {
    DemoTables.reset(dataSource, transport);
    long start = System.nanoTime();
    boolean drained;
    try (Once once = DemoPipeline.once(dataSource, transport, faults, outcomes)) {
      DemoPipeline.start(once, settings.workers(), RELAYS);
      new DemoProducer(once, settings.workers(), 0)
          .produce(
              LongStream.rangeClosed(1, settings.events()).boxed().toList(), settings.timeout());
      drained =
          new DemoProgress(dataSource, transport, settings.events(), progress, faults)
              .awaitDrained(start, settings.timeout());
    }
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    DemoVerdict verdict = DemoCheck.run(dataSource, transport, settings.events());
    return new DemoReport(
        settings,
        verdict,
        faults.crashes(),
        outcomes.get(Outcome.DUPLICATE),
        transport.duplicated(),
        took,
        drained);
  }
}
