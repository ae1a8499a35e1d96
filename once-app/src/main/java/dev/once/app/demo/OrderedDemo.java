package dev.once.app.demo;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.ParkedKey;
import dev.once.ReceivedEvent;
import dev.once.Relay;
import dev.once.RetryPolicy;
import dev.once.scenario.WarehouseTables;
import dev.once.spi.Transport;
import dev.once.testkit.CrashPoint;
import dev.once.testkit.SimulatedCrash;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * {@code once demo --ordered}: order-status events (placed, paid, packed, shipped, delivered) per
 * order through an ordered consumer, with workers crashing before and after their commits and a
 * poisoned status on some orders, which parks their keys; the poison is then fixed and every parked
 * key replayed. The verdict comes from the effects: each records its order's status number in
 * commit order, and a check counts every effect that does not follow its order's previous one by
 * exactly one (a decrease, a repeat or a gap): it must be 0.
 */
final class OrderedDemo {
  static final String DESTINATION = "order-status";
  static final String CONSUMER = "order-status";
  static final List<String> STATUSES = List.of("placed", "paid", "packed", "shipped", "delivered");

  /** Effects out of order: in commit order per order, a status not one after the previous. */
  static final String OUT_OF_ORDER =
      """
      SELECT count(*) FROM (
        SELECT step, lag(step) OVER (PARTITION BY order_id ORDER BY n) AS prev
          FROM demo_order_status) e
       WHERE step <> coalesce(prev, 0) + 1
      """;

  /**
   * The effects, numbered in insert order: an order's next status is claimed only after the
   * previous one's commit, so per order that is commit order.
   */
  private static final String CREATE =
      """
      CREATE TABLE demo_order_status (
          n        bigserial PRIMARY KEY,
          order_id text      NOT NULL,
          step     int       NOT NULL,
          status   text      NOT NULL)
      """;

  /** The same on MariaDB/MySQL, which has no bigserial. */
  private static final String CREATE_MARIADB =
      """
      CREATE TABLE demo_order_status (
          n        bigint       AUTO_INCREMENT PRIMARY KEY,
          order_id varchar(40)  NOT NULL,
          step     int          NOT NULL,
          status   varchar(40)  NOT NULL
      ) ENGINE = InnoDB
      """;

  private final DataSource dataSource;
  private final Transport transport;
  private final DemoSettings settings;
  private final double poisonRate;
  private final PrintStream progress;
  private final AtomicLong crashes = new AtomicLong();
  private final AtomicBoolean poisoned = new AtomicBoolean(true);

  OrderedDemo(
      DataSource dataSource,
      Transport transport,
      DemoSettings settings,
      double poisonRate,
      PrintStream progress) {
    this.dataSource = dataSource;
    this.transport = transport;
    this.settings = settings;
    this.poisonRate = poisonRate;
    this.progress = progress;
  }

  /** The report's figures; {@code ok} when every order's five statuses took effect in order. */
  record Report(
      int orders,
      long events,
      long poisonedOrders,
      long keysParked,
      long replayed,
      long crashes,
      long effects,
      long outOfOrder,
      long parkedLeft,
      Duration took) {
    boolean ok() {
      return outOfOrder == 0 && effects == events && parkedLeft == 0;
    }

    Map<String, Object> toJson() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("orders", orders);
      m.put("events", events);
      m.put("poisoned_orders", poisonedOrders);
      m.put("keys_parked", keysParked);
      m.put("keys_replayed", replayed);
      m.put("crashes", crashes);
      m.put("effects", effects);
      m.put("out_of_order", outOfOrder);
      m.put("parked_left", parkedLeft);
      m.put("seconds", took.toMillis() / 1000.0);
      m.put("ok", ok());
      return m;
    }

    void print(PrintStream out) {
      out.printf("once demo --ordered: %d orders, %d order-status events%n", orders, events);
      out.printf("  %-34s %d%n", "orders with a poisoned status", poisonedOrders);
      out.printf("  %-34s %d (then replayed: %d)%n", "keys parked", keysParked, replayed);
      out.printf("  %-34s %d%n", "worker crashes injected", crashes);
      out.printf("  %-34s %d of %d%n", "effects", effects, events);
      out.printf("  %-34s %d%n", "out-of-order effects", outOfOrder);
      out.printf("  %-34s %d%n", "keys still parked", parkedLeft);
      out.printf("  %-34s %.1f s%n", "took", took.toMillis() / 1000.0);
      out.println(
          ok()
              ? "OK: every order's statuses took effect once each, in publish order, through"
                  + " crashes, poison and replays"
              : "FAILED: see the figures above");
    }
  }

  Report run() throws SQLException {
    Instant start = Instant.now();
    createTable();
    int orders = settings.events();
    long poisonedOrders = 0;
    try (Once once =
        Once.builder()
            .dataSource(dataSource)
            .transport(transport)
            .destinations(DESTINATION)
            .listener(crashes(new SplittableRandom(settings.seed())))
            .build()) {
      Consumer consumer =
          once.consumer(CONSUMER)
              .subscribe(DESTINATION, this::handle)
              .retry(
                  RetryPolicy.builder()
                      .maxAttempts(3)
                      .backoff(Duration.ofMillis(10), Duration.ofMillis(50))
                      .build())
              .workers(settings.workers())
              .idleWait(Duration.ofMillis(50))
              .ordered()
              .build();
      for (int order = 1; order <= orders; order++) {
        poisonedOrders += poisonStep(order) > 0 ? 1 : 0;
      }
      publish(once, orders);
      progress.println("once demo --ordered: published " + orders * STATUSES.size() + " events");
      Relay relay = once.newRelay().start();
      consumer.start();
      long expectedParked = poisonedOrders;
      // at least the poisoned keys: an event whose every attempt crashed parks its key too (three
      // crashes in a row at --crash-rate 0.1 happen in a run of a thousand events)
      waitFor("the poisoned keys to park", () -> parked(once) >= expectedParked && idle(once));
      long keysParked = parked(once);
      progress.println("once demo --ordered: " + keysParked + " keys parked; fixing the poison");
      poisoned.set(false);
      long replayed = 0;
      for (ParkedKey k = next(once); k != null; k = next(once)) {
        replayed += once.deadLetters().replayKey(CONSUMER, k.key(), "once demo", "fixed").size();
      }
      long total = (long) orders * STATUSES.size();
      waitFor(
          "every status to take effect",
          () -> count("SELECT count(*) FROM demo_order_status") >= total && idle(once));
      consumer.close();
      relay.close();
      return new Report(
          orders,
          total,
          poisonedOrders,
          keysParked,
          replayed,
          crashes.get(),
          count("SELECT count(*) FROM demo_order_status"),
          count(OUT_OF_ORDER),
          parked(once),
          Duration.between(start, Instant.now()));
    }
  }

  /** The status of order {@code order} that fails until fixed (2 to 4), or 0: none. */
  private int poisonStep(long order) {
    long h = (settings.seed() * 0x9E3779B97F4A7C15L) ^ (order * 0xBF58476D1CE4E5B9L);
    h = (h ^ (h >>> 31)) * 0x94D049BB133111EBL;
    h ^= h >>> 29;
    boolean poison = (h >>> 11) * 0x1.0p-53 < poisonRate;
    return poison ? 2 + (int) Math.floorMod(h, 3) : 0;
  }

  private void handle(dev.once.Tx tx, ReceivedEvent e) {
    String id = e.id().value();
    int step = Integer.parseInt(id.substring(id.lastIndexOf(':') + 1));
    if (poisoned.get() && step == poisonStep(Long.parseLong(e.key()))) {
      throw new IllegalStateException("status " + STATUSES.get(step - 1) + " cannot be applied");
    }
    tx.update(
        "INSERT INTO demo_order_status (order_id, step, status) VALUES (?, ?, ?)",
        e.key(),
        step,
        e.type());
  }

  /** Status by status: each producer transaction commits one status of up to 500 orders. */
  private static void publish(Once once, int orders) {
    for (int step = 1; step <= STATUSES.size(); step++) {
      for (int from = 1; from <= orders; from += 500) {
        int s = step;
        int first = from;
        once.useTransaction(
            tx -> {
              for (int order = first; order < first + 500 && order <= orders; order++) {
                tx.publish(
                    Event.of(
                        EventId.of("order-status", order, s),
                        DESTINATION,
                        Long.toString(order),
                        STATUSES.get(s - 1),
                        "{}"));
              }
            });
      }
    }
  }

  /** Crashes a worker before its batch commits and after, before the ack, at the crash rate. */
  private OnceListener crashes(SplittableRandom seeded) {
    double rate = settings.crashRate();
    return new OnceListener() {
      @Override
      public void handled(ReceivedEvent event) {
        if (chance(rate / 4)) {
          crashes.incrementAndGet();
          throw new SimulatedCrash(CrashPoint.CONSUMER_AFTER_EFFECT_BEFORE_COMMIT, "demo");
        }
      }

      @Override
      public void committed(List<ReceivedEvent> events) {
        if (chance(rate)) {
          crashes.incrementAndGet();
          throw new SimulatedCrash(CrashPoint.CONSUMER_AFTER_COMMIT_BEFORE_ACK, "demo");
        }
      }

      private boolean chance(double p) {
        synchronized (seeded) {
          return seeded.nextDouble() < p;
        }
      }
    };
  }

  private static ParkedKey next(Once once) {
    List<ParkedKey> keys = once.deadLetters().parkedKeys(CONSUMER, null, 0, 1);
    return keys.isEmpty() ? null : keys.get(0);
  }

  private static long parked(Once once) {
    return once.status().parkedKeys().stream().mapToLong(b -> b.parked()).sum();
  }

  /** Nothing in the queue but what waits behind parked keys, nothing waiting for a retry. */
  private static boolean idle(Once once) {
    var s = once.status();
    long queued = s.queue().stream().mapToLong(b -> b.waiting()).sum();
    long behind = s.parkedKeys().stream().mapToLong(b -> b.waiting()).sum();
    long outbox = s.outbox().stream().mapToLong(b -> b.waiting()).sum();
    return outbox == 0 && queued == behind;
  }

  private void waitFor(String what, BooleanSupplier done) {
    Instant deadline = Instant.now().plus(settings.timeout());
    while (!done.getAsBoolean()) {
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException(
            "once demo --ordered: timed out after " + settings.timeout() + " waiting for " + what);
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for " + what, e);
      }
    }
  }

  private void createTable() throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS demo_order_status");
      s.execute(WarehouseTables.isMariaDb(c) ? CREATE_MARIADB : CREATE);
      s.execute("DELETE FROM once_queue WHERE consumer_group = '" + CONSUMER + "'");
      s.execute("DELETE FROM once_parked_key WHERE consumer_group = '" + CONSUMER + "'");
      s.execute("DELETE FROM once_dead_letter WHERE consumer_id = '" + CONSUMER + "'");
      s.execute("DELETE FROM once_inbox WHERE consumer_id = '" + CONSUMER + "'");
      s.execute("DELETE FROM once_attempt WHERE consumer_id = '" + CONSUMER + "'");
      s.execute("DELETE FROM once_outbox WHERE destination = '" + DESTINATION + "'");
    }
  }

  private long count(String sql) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        var rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
