package dev.once.micrometer;

import dev.once.WorkloadStatus;
import dev.once.WorkloadStatus.Backlog;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gauges read from the database every {@code interval} (one {@link WorkloadStatus} query per round,
 * whatever the number of scrapes): oldest pending age and size of the outbox (per destination), the
 * table queue (per consumer group), the retry backlog (per consumer), the open dead letters (per
 * consumer), and the keys an ordered consumer parked (per consumer: how many, the oldest's age, the
 * events waiting behind them). A name seen once keeps reporting, as 0 when it has nothing. A scrape
 * never reads the database: {@code once.workload.age} says how long ago the values were read
 * (seconds); it grows while the database does not answer.
 */
public final class WorkloadGauges implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WorkloadGauges.class);

  private final Supplier<WorkloadStatus> status;
  private final ScheduledExecutorService timer;
  private final List<Gauge> gauges = new ArrayList<>();
  private volatile long readAtNanos = System.nanoTime();

  /** One MultiGauge over one part of the status, and the names it has seen. */
  private record Gauge(
      MultiGauge gauge,
      String tag,
      java.util.function.Function<WorkloadStatus, List<Backlog>> part,
      ToDoubleFunction<Backlog> value,
      Set<String> seen) {}

  private WorkloadGauges(MeterRegistry registry, Supplier<WorkloadStatus> status) {
    this.status = status;
    add(
        registry,
        "once.outbox.oldest.age",
        "seconds",
        "destination",
        WorkloadStatus::outbox,
        WorkloadGauges::age);
    add(
        registry,
        "once.outbox.pending",
        null,
        "destination",
        WorkloadStatus::outbox,
        b -> b.waiting());
    add(
        registry,
        "once.outbox.parked",
        null,
        "destination",
        WorkloadStatus::outbox,
        b -> b.parked());
    add(
        registry,
        "once.queue.oldest.age",
        "seconds",
        "consumer",
        WorkloadStatus::queue,
        WorkloadGauges::age);
    add(registry, "once.queue.waiting", null, "consumer", WorkloadStatus::queue, b -> b.waiting());
    add(
        registry,
        "once.retry.oldest.age",
        "seconds",
        "consumer",
        WorkloadStatus::retries,
        WorkloadGauges::age);
    add(
        registry,
        "once.retry.waiting",
        null,
        "consumer",
        WorkloadStatus::retries,
        b -> b.waiting());
    add(
        registry,
        "once.dead.letters",
        null,
        "consumer",
        WorkloadStatus::deadLetters,
        b -> b.waiting());
    add(
        registry,
        "once.keys.parked",
        null,
        "consumer",
        WorkloadStatus::parkedKeys,
        b -> b.parked());
    add(
        registry,
        "once.keys.oldest.age",
        "seconds",
        "consumer",
        WorkloadStatus::parkedKeys,
        WorkloadGauges::age);
    add(
        registry,
        "once.keys.waiting",
        null,
        "consumer",
        WorkloadStatus::parkedKeys,
        b -> b.waiting());
    io.micrometer.core.instrument.Gauge.builder(
            "once.workload.age", this, g -> (System.nanoTime() - g.readAtNanos) / 1e9)
        .baseUnit("seconds")
        .description("how long ago the once.* workload gauges were read from the database")
        .register(registry);
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "once-metrics");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Registers the gauges and refreshes them now and every {@code interval} from {@code status}
   * ({@code once::status}, or {@code () -> WorkloadStatus.read(dataSource)} in a process that runs
   * no {@link dev.once.Once}). Close to stop.
   */
  public static WorkloadGauges bind(
      MeterRegistry registry, Supplier<WorkloadStatus> status, Duration interval) {
    WorkloadGauges g = new WorkloadGauges(registry, status);
    g.refresh();
    g.timer.scheduleWithFixedDelay(
        g::refreshQuietly, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    return g;
  }

  private static double age(Backlog b) {
    return b.oldestAge().toMillis() / 1000.0;
  }

  private void add(
      MeterRegistry registry,
      String name,
      String unit,
      String tag,
      java.util.function.Function<WorkloadStatus, List<Backlog>> part,
      ToDoubleFunction<Backlog> value) {
    MultiGauge g = MultiGauge.builder(name).baseUnit(unit).register(registry);
    gauges.add(new Gauge(g, tag, part, value, ConcurrentHashMap.newKeySet()));
  }

  /** Reads the status and sets every gauge. */
  public void refresh() {
    WorkloadStatus now = status.get();
    for (Gauge g : gauges) {
      Map<String, Double> values = new TreeMap<>();
      for (Backlog b : g.part().apply(now)) {
        values.put(b.name(), g.value().applyAsDouble(b));
      }
      g.seen().addAll(values.keySet());
      List<MultiGauge.Row<?>> rows = new ArrayList<>();
      for (String name : new TreeSet<>(g.seen())) {
        double v = values.getOrDefault(name, 0.0);
        rows.add(MultiGauge.Row.of(Tags.of(g.tag(), name), v));
      }
      g.gauge().register(rows, true);
    }
    readAtNanos = System.nanoTime();
  }

  private void refreshQuietly() {
    try {
      refresh();
    } catch (RuntimeException e) {
      log.warn("once metrics: could not read the workload status: {}", e.toString());
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
