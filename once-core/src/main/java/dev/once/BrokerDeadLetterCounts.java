package dev.once;

import dev.once.spi.BrokerDeadLetters;
import dev.once.spi.Transport;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many messages the broker dead-lettered on its own per consumer group (RabbitMQ: the group's
 * {@code <queue>.dead-letter} queue), read on a thread of its own every {@code interval} and kept
 * with the time of the read — for a metrics scrape or a status page, which must answer at once
 * while the broker is unreachable or half-open (a question to it then waits until the client's
 * heartbeat gives up). A group whose read fails keeps its last count, and its {@link #age} grows.
 *
 * <pre>{@code
 * try (BrokerDeadLetterCounts counts =
 *     BrokerDeadLetterCounts.start(transport, Map.of("warehouse", "orders"), Duration.ofSeconds(5))) {
 *   counts.count("warehouse"); // the last count read, never a call to the broker
 * }
 * }</pre>
 */
public final class BrokerDeadLetterCounts implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(BrokerDeadLetterCounts.class);

  private final BrokerDeadLetters broker;
  private final Map<String, String> groups;
  private final Map<String, Read> last = new ConcurrentHashMap<>();
  private final ScheduledExecutorService timer;
  private volatile boolean failing;
  private volatile boolean closed;

  /** A count and when it was read ({@link System#nanoTime()}). */
  private record Read(long count, long atNanos) {}

  private BrokerDeadLetterCounts(BrokerDeadLetters broker, Map<String, String> groups) {
    this.broker = broker;
    this.groups = Map.copyOf(groups);
    this.timer =
        broker == null
            ? null
            : Executors.newSingleThreadScheduledExecutor(
                r -> {
                  Thread t = new Thread(r, "once-broker-dead-letters");
                  t.setDaemon(true);
                  return t;
                });
  }

  /**
   * Reads the counts of {@code groups} (consumer group → destination) from {@code transport} now
   * and every {@code interval}, in the background; nothing if the transport's broker keeps no dead
   * letters of its own ({@link #supported()} is then false). Close to stop.
   */
  public static BrokerDeadLetterCounts start(
      Transport transport, Map<String, String> groups, Duration interval) {
    BrokerDeadLetterCounts c =
        new BrokerDeadLetterCounts(
            transport.capability(BrokerDeadLetters.class).orElse(null), groups);
    if (c.timer != null) {
      c.timer.scheduleWithFixedDelay(
          c::refresh, 0, Math.max(1, interval.toMillis()), TimeUnit.MILLISECONDS);
    }
    return c;
  }

  /** Whether the broker keeps dead letters of its own (else every count is empty). */
  public boolean supported() {
    return broker != null;
  }

  /** The consumer groups counted (consumer group → destination). */
  public Map<String, String> groups() {
    return groups;
  }

  /** The last count read for {@code group}; empty before the first answer or if unsupported. */
  public OptionalLong count(String group) {
    Read r = last.get(group);
    return r == null ? OptionalLong.empty() : OptionalLong.of(r.count());
  }

  /** How long ago {@link #count} was read from the broker; empty before the first answer. */
  public Optional<Duration> age(String group) {
    Read r = last.get(group);
    return r == null
        ? Optional.empty()
        : Optional.of(Duration.ofNanos(System.nanoTime() - r.atNanos()));
  }

  /** Reads every group's count now, on the caller's thread (the background thread calls it). */
  public void refresh() {
    if (broker == null) {
      return;
    }
    boolean failed = false;
    for (Map.Entry<String, String> e : groups.entrySet()) {
      try {
        last.put(e.getKey(), new Read(broker.count(e.getValue(), e.getKey()), System.nanoTime()));
      } catch (RuntimeException ex) {
        failed = true;
        if (!failing && !closed) {
          log.warn(
              "cannot read the broker's dead letters of {}; the last count is kept and its age"
                  + " grows until the broker answers: {}",
              e.getKey(),
              ex.toString());
        }
      }
    }
    if (failing && !failed) {
      log.info("the broker's dead letters are read again");
    }
    failing = failed;
  }

  @Override
  public void close() {
    closed = true;
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
