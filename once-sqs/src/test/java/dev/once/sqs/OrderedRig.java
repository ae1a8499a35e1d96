package dev.once.sqs;

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
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * The ordering checker's rig on SQS (ElasticMQ in the test JVM): {@code keys} keys of {@code steps}
 * events each, published step by step (step s of every key in one producer transaction, so a key's
 * steps commit in order), a handler that records (key, step) as its effect, and {@link
 * #OUT_OF_ORDER}, which counts the effects that do not follow their key's previous one by exactly
 * one step (a step back, a repeat or a gap). One database; one Once and SQS transport per member
 * (process) of the group, on FIFO queues unless the rig is told otherwise.
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
  final String dest = "ordered-" + names.incrementAndGet();
  final Outcomes outcomes = new Outcomes();
  final List<AutoCloseable> closing = new ArrayList<>();
  final SqsTransport sqs;
  final Once once;
  private final String prefix =
      "o" + Long.toHexString(ThreadLocalRandom.current().nextLong()) + "-";
  private final boolean fifo;
  private final OnceListener listener;
  private final UnaryOperator<Transport> wrap;
  private final DataSource dataSource;
  private Relay relay;

  /**
   * @param fifo FIFO queues (false: standard, for the broken twin)
   * @param wrap wraps each member's transport (receivers that die or hold a message back)
   * @param dataSource Once's data source, {@code db}'s or a wrapper of it (null: {@code db}'s)
   */
  OrderedRig(
      TestDatabase db,
      boolean fifo,
      OnceListener listener,
      UnaryOperator<Transport> wrap,
      DataSource dataSource) {
    this.db = db;
    this.fifo = fifo;
    this.listener = listener;
    this.wrap = wrap;
    this.dataSource = dataSource == null ? db.dataSource() : dataSource;
    db.execute(
        db.isMariaDb()
            ? "CREATE TABLE ordered_effect"
                + " (n BIGINT AUTO_INCREMENT PRIMARY KEY, event_key VARCHAR(50), step INT NOT NULL)"
            : "CREATE TABLE ordered_effect"
                + " (n bigserial PRIMARY KEY, event_key text, step int NOT NULL)");
    sqs = newTransport();
    once = join(sqs);
  }

  SqsTransport newTransport() {
    SqsTransport t = Sqs.transport().fifo(fifo).namePrefix(prefix).build();
    closing.add(0, t);
    return t;
  }

  /** Another member of the group: a transport and a Once of its own on the same database. */
  Once join() {
    return join(newTransport());
  }

  private Once join(SqsTransport transport) {
    Once member =
        Once.builder()
            .dataSource(dataSource)
            .dialect(db.dialect())
            .transport(wrap.apply(transport))
            .destinations(dest)
            .relayIdleWait(Duration.ofMillis(50))
            .confirmTimeout(Duration.ofSeconds(10))
            .retention(RetentionPolicy.DEFAULT)
            .listener(outcomes)
            .listener(listener)
            .build();
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
        .atMost(Duration.ofSeconds(180))
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

  /** The URL of the group's queue (declared). */
  String queueUrl() {
    sqs.declare(dest, "warehouse");
    String name = prefix + dest + "__warehouse" + (fifo ? ".fifo" : "");
    return sqs.client().getQueueUrl(b -> b.queueName(name)).join().queueUrl();
  }

  /** Messages left in the group's queue: visible, in flight or delayed. */
  long leftInSqs() {
    return sqs.depth(dest, "warehouse").orElseThrow();
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

  static int step(ReceivedEvent e) {
    return step(e.id().value());
  }

  static int step(Event e) {
    return step(e.id().value());
  }

  private static int step(String id) {
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

  /**
   * {@code dataSource}, whose process dies at the commit of a lane write (an insert into the lane)
   * when {@code dies} says so, given the lane write's number: the write rolls back.
   */
  static DataSource dyingAtLaneCommit(DataSource dataSource, IntPredicate dies) {
    AtomicInteger writes = new AtomicInteger();
    return (DataSource)
        Proxy.newProxyInstance(
            DataSource.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (p, m, args) -> {
              Object out = invoke(m, dataSource, args);
              if (!(out instanceof Connection c)) {
                return out;
              }
              AtomicBoolean laneWrite = new AtomicBoolean();
              return Proxy.newProxyInstance(
                  Connection.class.getClassLoader(),
                  new Class<?>[] {Connection.class},
                  (cp, cm, cargs) -> {
                    if (cm.getName().equals("prepareStatement") && isLaneWrite(cargs[0])) {
                      laneWrite.set(true);
                    }
                    if (cm.getName().equals("commit")
                        && laneWrite.getAndSet(false)
                        && dies.test(writes.incrementAndGet())) {
                      throw new Error("simulated crash before the lane's commit");
                    }
                    return invoke(cm, c, cargs);
                  });
            });
  }

  /** The receiver's insert into the lane: the group's binding in key order. */
  static boolean isLaneWrite(Object sql) {
    return sql instanceof String s
        && s.contains("INSERT INTO once_queue")
        && s.contains("b.in_key_order");
  }

  static Object invoke(java.lang.reflect.Method m, Object target, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
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

    Wrapped(Transport sqs, UnaryOperator<Receiver> receivers) {
      super(sqs);
      this.receivers = receivers;
    }

    @Override
    public Receiver receiver(String destination, String consumerId) {
      return receivers.apply(super.receiver(destination, consumerId));
    }
  }

  /**
   * The broken twin's transport: takes an ordered consumer on a standard queue, which SQS's own
   * transport refuses, so that its receivers feed the lane from a queue that keeps no key order.
   */
  static final class Unordered extends Wrapped implements QueueOrder {
    Unordered(Transport sqs, UnaryOperator<Receiver> receivers) {
      super(sqs, receivers);
    }

    @Override
    public void deliverInQueueOrder(String destination, String consumerId) {
      // the twin: a standard queue taken as if it kept a key's order
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
}
