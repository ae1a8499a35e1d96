package dev.once.testkit;

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
import dev.once.Tx;
import dev.once.jdbc.Dialect;
import dev.once.spi.Transport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * The key-order checker's rig for an ordered consumer on a broker transport: keys {@code k0, k1, …}
 * of numbered steps, published step by step (step s of every key in one producer transaction, so a
 * key's steps commit in order), a handler ({@link #record}) that records (key, step) as its effect
 * in {@code ordered_effect}, and {@link #OUT_OF_ORDER}, which counts the effects that do not follow
 * their key's previous one by exactly one step (a step back, a repeat or a gap). One database; one
 * Once and transport per member (process) of the consumer group {@code warehouse}.
 *
 * <p>A subclass gives the transport ({@link #newTransport()}) and joins the first member ({@link
 * #join(Transport)}) in its constructor. {@link LaneFaults} has the faults to run it under.
 */
public abstract class KeyOrderRig implements AutoCloseable {
  /** Counts the effects that do not follow their key's previous one by exactly one step. */
  public static final String OUT_OF_ORDER =
      """
      SELECT count(*) FROM (
        SELECT step, lag(step) OVER (PARTITION BY event_key ORDER BY n) AS prev
          FROM ordered_effect) e
       WHERE step <> coalesce(prev, 0) + 1
      """;

  private static final AtomicInteger names = new AtomicInteger();

  private final DataSource db;
  private final Dialect dialect;
  private final String dest = "ordered-" + names.incrementAndGet();
  private final Outcomes outcomes = new Outcomes();
  private final List<AutoCloseable> closing = new ArrayList<>();
  private final OnceListener listener;
  private final UnaryOperator<Transport> wrap;
  private final DataSource onceDataSource;
  private AutoCloseable owned;
  private Once once;
  private Relay relay;

  /**
   * Creates {@code ordered_effect} in {@code db}.
   *
   * @param db the test's database
   * @param dialect its dialect
   * @param listener every member's listener (crashes to simulate)
   * @param wrap wraps each member's transport (receivers that die or hold a message back)
   * @param onceDataSource Once's data source, {@code db} or a wrapper of it (null: {@code db})
   */
  protected KeyOrderRig(
      DataSource db,
      Dialect dialect,
      OnceListener listener,
      UnaryOperator<Transport> wrap,
      DataSource onceDataSource) {
    this.db = db;
    this.dialect = dialect;
    this.listener = listener;
    this.wrap = wrap;
    this.onceDataSource = onceDataSource == null ? db : onceDataSource;
    update(
        dialect.name().equals("mariadb")
            ? "CREATE TABLE ordered_effect"
                + " (n BIGINT AUTO_INCREMENT PRIMARY KEY, event_key VARCHAR(50), step INT NOT NULL)"
            : "CREATE TABLE ordered_effect"
                + " (n bigserial PRIMARY KEY, event_key text, step int NOT NULL)");
  }

  /** A new transport for a member, closed with the rig. */
  protected abstract Transport newTransport();

  /** Another member of the group: a transport and a Once of its own on the same database. */
  public Once join() {
    return join(newTransport());
  }

  /**
   * A member on {@code transport} (wrapped as the rig was told), closed with the rig; the first
   * joined is {@link #once()}.
   */
  protected Once join(Transport transport) {
    Once member =
        Once.builder()
            .dataSource(onceDataSource)
            .dialect(dialect)
            .transport(wrap.apply(transport))
            .destinations(dest)
            .relayIdleWait(Duration.ofMillis(50))
            .confirmTimeout(Duration.ofSeconds(10))
            .retention(RetentionPolicy.DEFAULT)
            .listener(outcomes)
            .listener(listener)
            .build();
    closing(member);
    if (once == null) {
      once = member;
    }
    return member;
  }

  /** The first member, which publishes. */
  public Once once() {
    return once;
  }

  /** The destination the steps are published to. */
  public String destination() {
    return dest;
  }

  /** Outcomes by kind, across every consumer of the rig. */
  public Outcomes outcomes() {
    return outcomes;
  }

  /**
   * Closes {@code c} with the rig, before what it closes already (so a consumer before its Once).
   */
  public <T extends AutoCloseable> T closing(T c) {
    closing.add(0, c);
    return c;
  }

  /** Closes {@code resource} last, after the rig's members: the database the rig runs on. */
  public KeyOrderRig owning(AutoCloseable resource) {
    owned = resource;
    return this;
  }

  /** {@code member}'s ordered consumer {@code warehouse}: four workers, batches of eight. */
  public ConsumerBuilder consumer(Once member, Handler handler, RetryPolicy retry) {
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
  public void publish(int keys, int from, int to) {
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

  /** Starts the first member's relay, once. */
  public void startRelay() {
    if (relay == null) {
      relay = once.newRelay();
      relay.start();
      closing(relay);
    }
  }

  /** Waits up to three minutes for {@code until}, polling; fails naming {@code what}. */
  public void await(String what, BooleanSupplier until) {
    long end = System.nanoTime() + Duration.ofMinutes(3).toNanos();
    while (!until.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("timed out waiting for " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what, e);
      }
    }
  }

  /** Effects recorded. */
  public long effects() {
    return count("SELECT count(*) FROM ordered_effect");
  }

  /** Effects out of their key's order ({@link #OUT_OF_ORDER}). */
  public long outOfOrder() {
    return count(OUT_OF_ORDER);
  }

  /** The single number {@code sql} returns from the test's database. */
  public long count(String sql, Object... params) {
    try (Connection c = db.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private void update(String sql) {
    try (Connection c = db.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The steps of {@code key}'s effects in commit order, comma-separated. */
  public String stepsOf(String key) {
    StringBuilder out = new StringBuilder();
    try (Connection c = db.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT step FROM ordered_effect WHERE event_key = ? ORDER BY n")) {
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.append(out.isEmpty() ? "" : ",").append(rs.getInt(1));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return out.toString();
  }

  /** "from,from+1,…,to" without {@code skip} (0: none), as {@link #stepsOf} says them. */
  public static String steps(int from, int to, int skip) {
    StringBuilder out = new StringBuilder();
    for (int s = from; s <= to; s++) {
      if (s != skip) {
        out.append(out.isEmpty() ? "" : ",").append(s);
      }
    }
    return out.toString();
  }

  /** The step of a published event. */
  public static int step(Event e) {
    return step(e.id().value());
  }

  /** The step of a received event. */
  public static int step(ReceivedEvent e) {
    return step(e.id().value());
  }

  private static int step(String id) {
    return Integer.parseInt(id.substring(id.lastIndexOf(':') + 1));
  }

  /** The rig's handler: records the event's key and step as its effect. */
  public static void record(Tx tx, ReceivedEvent e) {
    tx.update("INSERT INTO ordered_effect (event_key, step) VALUES (?, ?)", e.key(), step(e));
  }

  /** Retries after 1 to 5 ms, {@code maxAttempts} attempts in all. */
  public static RetryPolicy fast(int maxAttempts) {
    return RetryPolicy.builder()
        .maxAttempts(maxAttempts)
        .backoff(Duration.ofMillis(1), Duration.ofMillis(5))
        .build();
  }

  /**
   * {@link #record}, failing the first attempt of every seventh event (by id): it comes back after
   * a backoff.
   */
  public static Handler failingFirstAttempts() {
    var failed = ConcurrentHashMap.<String>newKeySet();
    return (tx, e) -> {
      if (Math.floorMod(e.id().value().hashCode(), 7) == 0 && failed.add(e.id().value())) {
        throw new IllegalStateException("first attempt fails");
      }
      record(tx, e);
    };
  }

  /** Closes what the rig made, last made first, then what it owns. */
  @Override
  public void close() {
    if (owned != null) {
      closing.add(owned);
    }
    for (AutoCloseable c : closing) {
      try {
        c.close();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** Counts outcomes by kind. */
  public static final class Outcomes implements OnceListener {
    private final Map<Outcome, AtomicLong> counts = new ConcurrentHashMap<>();

    Outcomes() {}

    @Override
    public void outcome(ReceivedEvent event, Outcome outcome, Duration took) {
      counts.computeIfAbsent(outcome, o -> new AtomicLong()).incrementAndGet();
    }

    /** Outcomes of kind {@code o} so far. */
    public long get(Outcome o) {
      AtomicLong n = counts.get(o);
      return n == null ? 0 : n.get();
    }
  }
}
