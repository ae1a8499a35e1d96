package dev.once.rabbitmq;

import dev.once.ConsumerBuilder;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Handler;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.Relay;
import dev.once.RetentionPolicy;
import dev.once.RetryPolicy;
import dev.once.spi.Delivery;
import dev.once.spi.ForwardingTransport;
import dev.once.spi.QueueOrder;
import dev.once.spi.Receiver;
import dev.once.spi.Transport;
import dev.once.test.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * The ordering checker's rig on RabbitMQ: {@code keys} keys of {@code steps} events each, published
 * step by step (step s of every key in one producer transaction, so a key's steps commit in order),
 * a handler that records (key, step) as its effect, and {@link #OUT_OF_ORDER}, which counts the
 * effects that do not follow their key's previous one by exactly one step (a step back, a repeat or
 * a gap). One database; one Once and RabbitMQ transport per member (process) of the group.
 */
final class OrderedRig implements AutoCloseable {
  static final String OUT_OF_ORDER =
      """
      SELECT count(*) FROM (
        SELECT step, lag(step) OVER (PARTITION BY event_key ORDER BY n) AS prev
          FROM ordered_effect) e
       WHERE step <> coalesce(prev, 0) + 1
      """;

  private static final AtomicInteger names = new AtomicInteger();

  final TestDatabase db;
  final String vhost;
  final String dest = "ordered-" + names.incrementAndGet();
  final Outcomes outcomes = new Outcomes();
  final List<AutoCloseable> closing = new ArrayList<>();
  final Once once;
  private final OnceListener listener;
  private final UnaryOperator<Transport> wrap;
  private final DataSource dataSource;
  private Relay relay;

  /**
   * @param wrap wraps each member's transport (receivers that die, a twin without a single active
   *     consumer)
   * @param dataSource Once's data source, {@code db}'s or a wrapper of it
   */
  OrderedRig(
      TestDatabase db,
      String vhost,
      OnceListener listener,
      UnaryOperator<Transport> wrap,
      DataSource dataSource) {
    this.db = db;
    this.vhost = vhost;
    this.listener = listener;
    this.wrap = wrap;
    this.dataSource = dataSource == null ? db.dataSource() : dataSource;
    db.execute(
        db.isMariaDb()
            ? "CREATE TABLE ordered_effect"
                + " (n BIGINT AUTO_INCREMENT PRIMARY KEY, event_key VARCHAR(50), step INT NOT NULL)"
            : "CREATE TABLE ordered_effect"
                + " (n bigserial PRIMARY KEY, event_key text, step int NOT NULL)");
    once = join();
  }

  /** Another member of the group: a transport and a Once of its own on the same database. */
  Once join() {
    RabbitTransport rabbit =
        RabbitTransport.builder()
            .uri(Broker.uri(vhost))
            .prefetch(16)
            .maxNackDelay(Duration.ofSeconds(2))
            .build();
    Once member =
        Once.builder()
            .dataSource(dataSource)
            .dialect(db.dialect())
            .transport(wrap.apply(rabbit))
            .destinations(dest)
            .relayIdleWait(Duration.ofMillis(50))
            .confirmTimeout(Duration.ofSeconds(10))
            .retention(RetentionPolicy.DEFAULT)
            .listener(outcomes)
            .listener(listener)
            .build();
    closing.add(0, rabbit);
    closing.add(0, member);
    return member;
  }

  ConsumerBuilder consumer(Once member, Handler handler, RetryPolicy retry) {
    return member
        .consumer("warehouse")
        .subscribe(dest, handler)
        .retry(retry)
        .workers(4)
        .batchSize(8)
        .idleWait(Duration.ofMillis(50))
        .batchLinger(Duration.ZERO)
        .ordered();
  }

  /** Step s of every key in one producer transaction, for s in [from, to]. */
  void publish(int keys, int from, int to) {
    for (int s = from; s <= to; s++) {
      int step = s;
      once.useTransaction(
          tx -> {
            for (int k = 0; k < keys; k++) {
              String key = "k" + k;
              tx.publish(Event.of(EventId.of("step", key, step), dest, key, "Step", "{}"));
            }
          });
    }
  }

  void startRelay() {
    if (relay == null) {
      relay = once.newRelay();
      relay.start();
      closing.add(0, relay);
    }
  }

  void await(String what, BooleanSupplier until) {
    org.awaitility.Awaitility.await(what)
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(20))
        .until(until::getAsBoolean);
  }

  long effects() {
    return db.count("SELECT count(*) FROM ordered_effect");
  }

  long outOfOrder() {
    return db.count(OUT_OF_ORDER);
  }

  long count(String sql, Object... params) {
    return db.count(sql, params);
  }

  /** The steps of {@code key}'s effects in commit order, comma-separated. */
  String stepsOf(String key) {
    StringBuilder out = new StringBuilder();
    try (var c = db.dataSource().getConnection();
        var ps =
            c.prepareStatement("SELECT step FROM ordered_effect WHERE event_key = ? ORDER BY n")) {
      ps.setString(1, key);
      try (var rs = ps.executeQuery()) {
        while (rs.next()) {
          out.append(out.isEmpty() ? "" : ",").append(rs.getInt(1));
        }
      }
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
    return out.toString();
  }

  /** "from,from+1,…,to" without {@code skip} (0: none). */
  static String steps(int from, int to, int skip) {
    StringBuilder out = new StringBuilder();
    for (int s = from; s <= to; s++) {
      if (s != skip) {
        out.append(out.isEmpty() ? "" : ",").append(s);
      }
    }
    return out.toString();
  }

  /** The group's queue in RabbitMQ, messages ready or delivered and not acknowledged. */
  long unsettled() {
    return Broker.messagesUnsettled(vhost, dest + ".warehouse");
  }

  static int step(ReceivedEvent e) {
    String id = e.id().value();
    return Integer.parseInt(id.substring(id.lastIndexOf(':') + 1));
  }

  static void record(dev.once.Tx tx, ReceivedEvent e) {
    tx.update("INSERT INTO ordered_effect (event_key, step) VALUES (?, ?)", e.key(), step(e));
  }

  static RetryPolicy fast(int maxAttempts) {
    return RetryPolicy.builder()
        .maxAttempts(maxAttempts)
        .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
        .build();
  }

  /** Fails the first attempt of every seventh event (by id): it comes back after a backoff. */
  static Handler failingFirstAttempts() {
    var failed = ConcurrentHashMap.<String>newKeySet();
    return (tx, e) -> {
      if (Math.floorMod(e.id().value().hashCode(), 7) == 0 && failed.add(e.id().value())) {
        throw new IllegalStateException("first attempt fails");
      }
      record(tx, e);
    };
  }

  @Override
  public void close() {
    for (AutoCloseable c : closing) {
      try {
        c.close();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** Counts outcomes by kind, across every consumer of the rig. */
  static final class Outcomes implements OnceListener {
    private final Map<Outcome, AtomicLong> counts = new ConcurrentHashMap<>();

    @Override
    public void outcome(ReceivedEvent event, Outcome outcome, Duration took) {
      counts.computeIfAbsent(outcome, o -> new AtomicLong()).incrementAndGet();
    }

    long get(Outcome o) {
      AtomicLong n = counts.get(o);
      return n == null ? 0 : n.get();
    }
  }

  /** Wraps the transport's receivers; keeps every capability (QueueOrder included). */
  static class Wrapped extends ForwardingTransport {
    private final UnaryOperator<Receiver> receivers;

    Wrapped(Transport rabbit, UnaryOperator<Receiver> receivers) {
      super(rabbit);
      this.receivers = receivers;
    }

    @Override
    public Receiver receiver(String destination, String consumerId) {
      return receivers.apply(super.receiver(destination, consumerId));
    }
  }

  /**
   * The broken twin's transport: says it delivers in queue order but leaves the group's queue as it
   * was, without a single active consumer, so every member's receiver competes for it.
   */
  static final class Competing extends Wrapped implements QueueOrder {
    Competing(Transport rabbit, UnaryOperator<Receiver> receivers) {
      super(rabbit, receivers);
    }

    @Override
    public void deliverInQueueOrder(String destination, String consumerId) {
      // the twin: no single active consumer
    }
  }

  /** A receiver passing everything on; override what a test changes. */
  static class Passing implements Receiver {
    final Receiver r;

    Passing(Receiver r) {
      this.r = r;
    }

    @Override
    public List<Delivery> poll(int max, Duration wait) throws InterruptedException {
      return r.poll(max, wait);
    }

    @Override
    public List<Delivery> poll(int max, Duration wait, Duration linger)
        throws InterruptedException {
      return r.poll(max, wait, linger);
    }

    @Override
    public void ack(List<Delivery> deliveries) {
      r.ack(deliveries);
    }

    @Override
    public void nack(List<Delivery> deliveries, Duration delay) {
      r.nack(deliveries, delay);
    }

    @Override
    public void release(List<Delivery> deliveries) {
      r.release(deliveries);
    }

    @Override
    public boolean cameBackCleanly(Delivery d) {
      return r.cameBackCleanly(d);
    }

    @Override
    public void close() {
      r.close();
    }
  }

  /** Holds a value for a listener made before the rig. */
  static final class Later<T> extends AtomicReference<T> {}
}
