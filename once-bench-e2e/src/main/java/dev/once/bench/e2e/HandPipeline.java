package dev.once.bench.e2e;

import dev.once.EventId;
import dev.once.bench.e2e.HandBroker.Msg;
import dev.once.scenario.WarehousePipeline;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * Ceiling C: a hand-written pipeline doing exactly the work Once does, with no library — what a
 * team would write themselves. Producers (raw JDBC) commit a business row and an outbox row per
 * order; relays take a batch of pending outbox rows {@code FOR UPDATE SKIP LOCKED}, publish it,
 * wait for the broker's confirms, mark the rows sent and commit; consumers take a batch, insert its
 * markers in one {@code INSERT … ON CONFLICT DO NOTHING RETURNING}, write each new event's effect
 * (and, on the first of two hops, its outgoing outbox row) in the same transaction, commit, then
 * acknowledge. Same threads, batch sizes and broker as Once's run; its own tables ({@code
 * bench_c_*}), so that nothing of Once's is read or written.
 *
 * <p>As in Once: the relay's transaction commits asynchronously and runs without sequential scans
 * (losing it only means publishing again), and a commit that writes outbox rows wakes the relays of
 * this process at once.
 *
 * <p>On MariaDB/MySQL, as Once's MariaDB dialect does it: the markers one {@code INSERT} each, in
 * event-id order, where a duplicate key (error 1062) means "not inserted" and every other error is
 * thrown (never {@code INSERT IGNORE}, which turns other errors into warnings); outbox rows the
 * same; the relay's transaction at {@code READ COMMITTED}; a consumer transaction that InnoDB rolls
 * back for a deadlock or a lock wait timeout runs again.
 */
final class HandPipeline implements AutoCloseable {
  /** What the pipeline does with an order. */
  enum Shape {
    /** The consumer writes its effect. */
    ONE_HOP,
    /** The warehouse writes its job and a DispatchQueued event, the notifier its notification. */
    TWO_HOPS,
    /** As the drain bench: the warehouse's DispatchQueued events go to a queue nobody reads. */
    DRAIN
  }

  static final String CREATE =
      """
      CREATE TABLE IF NOT EXISTS bench_c_orders (
          order_id   bigint      PRIMARY KEY,
          created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE IF NOT EXISTS bench_c_outbox (
          id          bigserial   PRIMARY KEY,
          event_id    text        NOT NULL UNIQUE,
          destination text        NOT NULL,
          event_key   text,
          event_type  text        NOT NULL,
          payload     bytea       NOT NULL,
          created_at  timestamptz NOT NULL DEFAULT now(),
          sent_at     timestamptz
      );
      CREATE INDEX IF NOT EXISTS bench_c_outbox_pending ON bench_c_outbox (id)
       WHERE sent_at IS NULL;
      CREATE TABLE IF NOT EXISTS bench_c_inbox (
          consumer_id text        NOT NULL,
          event_id    text        NOT NULL,
          created_at  timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (consumer_id, event_id)
      );
      CREATE TABLE IF NOT EXISTS bench_c_effects (
          id         bigserial   PRIMARY KEY,
          order_id   bigint      NOT NULL,
          event_id   text        NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE IF NOT EXISTS bench_c_notifications (
          id         bigserial   PRIMARY KEY,
          order_id   bigint      NOT NULL,
          event_id   text        NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
      );
      """;

  static final String CLEAR =
      """
      TRUNCATE bench_c_orders, bench_c_outbox, bench_c_inbox, bench_c_effects,
               bench_c_notifications;
      """;

  /** The same tables on MariaDB/MySQL: the pending index is on (sent_at, id), NULLs first. */
  static final String CREATE_MARIADB =
      """
      CREATE TABLE IF NOT EXISTS bench_c_orders (
          order_id   bigint      PRIMARY KEY,
          created_at datetime(6) NOT NULL DEFAULT (UTC_TIMESTAMP(6))
      ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
      CREATE TABLE IF NOT EXISTS bench_c_outbox (
          id          bigint       AUTO_INCREMENT PRIMARY KEY,
          event_id    varchar(200) NOT NULL UNIQUE,
          destination varchar(200) NOT NULL,
          event_key   varchar(200),
          event_type  varchar(200) NOT NULL,
          payload     longblob     NOT NULL,
          created_at  datetime(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
          sent_at     datetime(6),
          INDEX bench_c_outbox_pending (sent_at, id)
      ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
      CREATE TABLE IF NOT EXISTS bench_c_inbox (
          consumer_id varchar(200) NOT NULL,
          event_id    varchar(200) NOT NULL,
          created_at  datetime(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6)),
          PRIMARY KEY (consumer_id, event_id)
      ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
      CREATE TABLE IF NOT EXISTS bench_c_effects (
          id         bigint       AUTO_INCREMENT PRIMARY KEY,
          order_id   bigint       NOT NULL,
          event_id   varchar(200) NOT NULL,
          created_at datetime(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6))
      ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
      CREATE TABLE IF NOT EXISTS bench_c_notifications (
          id         bigint       AUTO_INCREMENT PRIMARY KEY,
          order_id   bigint       NOT NULL,
          event_id   varchar(200) NOT NULL,
          created_at datetime(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6))
      ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
      """;

  static final String CLEAR_MARIADB =
      """
      TRUNCATE bench_c_orders;
      TRUNCATE bench_c_outbox;
      TRUNCATE bench_c_inbox;
      TRUNCATE bench_c_effects;
      TRUNCATE bench_c_notifications;
      """;

  /** ER_DUP_ENTRY: the unique key holds the value already (the statement alone is undone). */
  private static final int DUPLICATE_KEY = 1062;

  /** How often a consumer transaction runs again after a deadlock or lock wait timeout. */
  private static final int CONFLICT_RETRIES = 10;

  private static final String INSERT_ORDER = "INSERT INTO bench_c_orders (order_id) VALUES (?)";
  private static final String INSERT_OUTBOX =
      """
      INSERT INTO bench_c_outbox (event_id, destination, event_key, event_type, payload)
      VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (event_id) DO NOTHING
      """;
  private static final String RELAY_SETTINGS =
      "SELECT set_config('synchronous_commit', 'off', true),"
          + " set_config('enable_seqscan', 'off', true)";
  private static final String CLAIM_OUTBOX =
      """
      SELECT id, event_id, destination, event_key, event_type, payload
        FROM bench_c_outbox
       WHERE sent_at IS NULL
       ORDER BY id
       LIMIT ?
       FOR UPDATE SKIP LOCKED
      """;
  private static final String MARK_SENT =
      "UPDATE bench_c_outbox SET sent_at = now() WHERE id = ANY(?::bigint[])";
  private static final String INSERT_MARKERS =
      """
      INSERT INTO bench_c_inbox (consumer_id, event_id)
      SELECT ?, e FROM unnest(?::text[]) WITH ORDINALITY AS u(e, n) ORDER BY n
      ON CONFLICT DO NOTHING
      RETURNING event_id
      """;
  private static final String PENDING = "SELECT count(*) FROM bench_c_outbox WHERE sent_at IS NULL";
  private static final String INSERT_OUTBOX_MARIADB =
      """
      INSERT INTO bench_c_outbox (event_id, destination, event_key, event_type, payload)
      VALUES (?, ?, ?, ?, ?)
      """;
  private static final String MARK_SENT_MARIADB =
      "UPDATE bench_c_outbox SET sent_at = UTC_TIMESTAMP(6) WHERE id IN (%s)";
  private static final String INSERT_MARKER_MARIADB =
      "INSERT INTO bench_c_inbox (consumer_id, event_id) VALUES (?, ?)";

  private final DataSource dataSource;
  private final HandBroker broker;
  private final BenchSettings s;
  private final Shape shape;
  private final boolean mariadb;
  private final String insertOutbox;
  private final AtomicLong conflicts = new AtomicLong();
  private final E2eTimings timings = new E2eTimings(BenchTables.C_IN, BenchTables.C_CONSUMER);
  private final Signal outbox = new Signal();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean running = true;

  HandPipeline(DataSource dataSource, HandBroker broker, BenchSettings s, Shape shape) {
    this.dataSource = dataSource;
    this.broker = broker;
    this.s = s;
    this.shape = shape;
    this.mariadb = BenchTables.isMariaDb(dataSource);
    this.insertOutbox = mariadb ? INSERT_OUTBOX_MARIADB : INSERT_OUTBOX;
    BenchTables.run(dataSource, mariadb ? CREATE_MARIADB + CLEAR_MARIADB : CREATE + CLEAR);
    broker.declare(BenchTables.C_IN, BenchTables.C_CONSUMER);
    broker.purge(BenchTables.C_IN, BenchTables.C_CONSUMER);
    if (shape == Shape.TWO_HOPS) {
      broker.declare(BenchTables.C_DISPATCH, BenchTables.C_NOTIFIER);
      broker.purge(BenchTables.C_DISPATCH, BenchTables.C_NOTIFIER);
    } else if (shape == Shape.DRAIN) {
      broker.declare(BenchTables.C_OUT, BenchTables.SINK);
      broker.purge(BenchTables.C_OUT, BenchTables.SINK);
    }
  }

  E2eTimings timings() {
    return timings;
  }

  /** Consumer transactions rolled back by a deadlock or lock wait timeout and run again. */
  long conflicts() {
    return conflicts.get();
  }

  /**
   * End to end: relays and consumers start, then the producers commit {@code s.events()} orders,
   * {@code s.producerBatch()} per transaction. Returns orders per second from the first producer
   * commit to the last effect committed.
   */
  double endToEnd() throws Exception {
    startConsumers();
    startRelays();
    Producers.fullSpeed(this::produce, s.producers(), s.producerBatch(), 1, s.events());
    await(s.events());
    return timings.eps(1, s.events() + 1L);
  }

  /**
   * As the drain bench: the producers commit every order first ({@code s.producerBatch()} per
   * transaction), then relays and consumer start; the clock runs until the last effect is committed
   * and the last outgoing event published.
   */
  double drain() throws Exception {
    Producers.fullSpeed(this::produce, s.producers(), s.producerBatch(), 1, s.events());
    long start = System.nanoTime();
    startConsumers();
    startRelays();
    await(s.events());
    long deadline = System.nanoTime() + s.timeoutSeconds() * 1_000_000_000L;
    while (BenchTables.count(dataSource, PENDING) > 0) {
      check(deadline);
      Thread.sleep(5);
    }
    return s.events() / ((System.nanoTime() - start) / 1e9);
  }

  /** Effect rows beyond one per event id, in every effect table. */
  long duplicateEffects() {
    return BenchTables.duplicates(dataSource, "bench_c_effects")
        + BenchTables.duplicates(dataSource, "bench_c_notifications");
  }

  private void await(long n) throws InterruptedException {
    long deadline = System.nanoTime() + s.timeoutSeconds() * 1_000_000_000L;
    if (!timings.await(n, s.timeoutSeconds() * 1_000_000_000L, () -> check(deadline))) {
      throw new IllegalStateException(
          "ceiling C: only " + timings.effects() + " of " + n + " effects in --timeout");
    }
  }

  private void check(long deadline) {
    Throwable t = failure.get();
    if (t != null) {
      throw new IllegalStateException("ceiling C failed: " + t, t);
    }
    if (System.nanoTime() > deadline) {
      throw new IllegalStateException("ceiling C did not finish in --timeout");
    }
  }

  /** One producer transaction: a business row and an outbox row per order of [from, to). */
  void produce(long from, long to) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement order = c.prepareStatement(INSERT_ORDER);
          PreparedStatement out = c.prepareStatement(insertOutbox)) {
        for (long id = from; id < to; id++) {
          order.setLong(1, id);
          order.executeUpdate();
          out.setString(1, "bench-paid:" + id);
          out.setString(2, BenchTables.C_IN);
          out.setString(3, Long.toString(id));
          out.setString(4, "BenchPaid");
          out.setBytes(5, Pipeline.payload(id).getBytes(StandardCharsets.UTF_8));
          insertUnlessDuplicate(out);
        }
      }
      c.commit();
    }
    timings.produced(from, to);
    outbox.signal();
  }

  private void startRelays() {
    for (int i = 0; i < s.relays(); i++) {
      spawn("c-relay-" + i, this::relayLoop);
    }
  }

  private void startConsumers() {
    boolean twoHops = shape == Shape.TWO_HOPS;
    for (int i = 0; i < s.workers(); i++) {
      spawn(
          "c-consumer-" + i,
          () -> consumerLoop(BenchTables.C_IN, BenchTables.C_CONSUMER, shape != Shape.ONE_HOP));
      if (twoHops) {
        spawn(
            "c-notifier-" + i,
            () -> consumerLoop(BenchTables.C_DISPATCH, BenchTables.C_NOTIFIER, false));
      }
    }
  }

  private interface Loop {
    void run() throws Exception;
  }

  private void spawn(String name, Loop loop) {
    Thread t =
        new Thread(
            () -> {
              try {
                loop.run();
              } catch (InterruptedException e) {
                // stopping
              } catch (Throwable e) {
                if (running) {
                  failure.compareAndSet(null, e);
                }
              }
            },
            "bench-" + name);
    t.setDaemon(true);
    threads.add(t);
    t.start();
  }

  private void relayLoop() throws Exception {
    try (HandBroker.Publisher publisher = broker.publisher()) {
      while (running) {
        long seen = outbox.generation();
        if (relayBatch(publisher) == 0) {
          outbox.await(seen, 100);
        }
      }
    }
  }

  private int relayBatch(HandBroker.Publisher publisher) throws Exception {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        try (Statement st = c.createStatement()) {
          st.execute(mariadb ? "SET TRANSACTION ISOLATION LEVEL READ COMMITTED" : RELAY_SETTINGS);
        }
        List<Long> ids = new ArrayList<>();
        List<Msg> batch = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(CLAIM_OUTBOX)) {
          ps.setInt(1, s.relayBatch());
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              ids.add(rs.getLong(1));
              batch.add(
                  new Msg(
                      rs.getString(2),
                      rs.getString(3),
                      rs.getString(4),
                      rs.getString(5),
                      rs.getBytes(6),
                      null));
            }
          }
        }
        if (!batch.isEmpty()) {
          publisher.publishConfirmed(batch);
          markSent(c, ids);
        }
        c.commit();
        return batch.size();
      } catch (Exception e) {
        c.rollback();
        throw e;
      }
    }
  }

  private void markSent(Connection c, List<Long> ids) throws SQLException {
    if (!mariadb) {
      try (PreparedStatement ps = c.prepareStatement(MARK_SENT)) {
        ps.setArray(1, c.createArrayOf("bigint", ids.toArray()));
        ps.executeUpdate();
      }
      return;
    }
    String in = String.join(", ", java.util.Collections.nCopies(ids.size(), "?"));
    try (PreparedStatement ps = c.prepareStatement(MARK_SENT_MARIADB.formatted(in))) {
      for (int i = 0; i < ids.size(); i++) {
        ps.setLong(i + 1, ids.get(i));
      }
      ps.executeUpdate();
    }
  }

  private void consumerLoop(String destination, String group, boolean emits) throws Exception {
    boolean last = group.equals(finalConsumer());
    try (HandBroker.HandReceiver receiver = broker.receiver(destination, group)) {
      while (running) {
        List<Msg> got = receiver.poll(s.batch(), 100);
        if (got.isEmpty()) {
          continue;
        }
        consume(group, got, emits);
        if (emits) {
          outbox.signal();
        }
        receiver.ack(got);
        if (last) {
          timings.effected(got.stream().map(m -> Long.parseLong(m.key())).toList());
        }
      }
    }
  }

  private String finalConsumer() {
    return shape == Shape.TWO_HOPS ? BenchTables.C_NOTIFIER : BenchTables.C_CONSUMER;
  }

  /**
   * One consumer transaction: the batch's markers in one statement, then for each new event its
   * effect row (and its outgoing outbox row when {@code emits}), then the commit.
   */
  private void consume(String group, List<Msg> got, boolean emits) throws SQLException {
    for (int attempt = 0; ; attempt++) {
      try {
        consumeOnce(group, got, emits);
        return;
      } catch (SQLException e) {
        if (attempt == CONFLICT_RETRIES || !Rollbacks.isConflict(e)) {
          throw e;
        }
        conflicts.incrementAndGet();
      }
    }
  }

  private void consumeOnce(String group, List<Msg> got, boolean emits) throws SQLException {
    String effects =
        group.equals(BenchTables.C_NOTIFIER) ? "bench_c_notifications" : "bench_c_effects";
    String outDestination = shape == Shape.DRAIN ? BenchTables.C_OUT : BenchTables.C_DISPATCH;
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        Set<String> fresh = insertMarkers(c, group, got);
        try (PreparedStatement effect =
                c.prepareStatement(
                    "INSERT INTO " + effects + " (order_id, event_id) VALUES (?, ?)");
            PreparedStatement out = c.prepareStatement(insertOutbox)) {
          for (Msg m : got) {
            if (!fresh.contains(m.id())) {
              continue; // a duplicate: its effect is already there
            }
            long orderId = Long.parseLong(m.key());
            effect.setLong(1, orderId);
            effect.setString(2, m.id());
            effect.executeUpdate();
            if (emits) {
              String id =
                  EventId.derive(group, new EventId(m.id()), WarehousePipeline.DISPATCH_QUEUED)
                      .value();
              out.setString(1, id);
              out.setString(2, outDestination);
              out.setString(3, m.key());
              out.setString(4, "DispatchQueued");
              out.setBytes(5, ("{\"orderId\":" + orderId + "}").getBytes(StandardCharsets.UTF_8));
              insertUnlessDuplicate(out);
            }
          }
        }
        c.commit();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    }
  }

  private Set<String> insertMarkers(Connection c, String group, List<Msg> got) throws SQLException {
    String[] ids = got.stream().map(Msg::id).toArray(String[]::new);
    Arrays.sort(ids); // a fixed order: two batches never wait on each other's markers in a cycle
    Set<String> inserted = new HashSet<>();
    if (mariadb) { // one INSERT per marker; a duplicate key means "not inserted"
      try (PreparedStatement ps = c.prepareStatement(INSERT_MARKER_MARIADB)) {
        for (String id : ids) {
          ps.setString(1, group);
          ps.setString(2, id);
          if (insertUnlessDuplicate(ps)) {
            inserted.add(id);
          }
        }
      }
      return inserted;
    }
    try (PreparedStatement ps = c.prepareStatement(INSERT_MARKERS)) {
      ps.setString(1, group);
      ps.setArray(2, c.createArrayOf("text", ids));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          inserted.add(rs.getString(1));
        }
      }
    }
    return inserted;
  }

  /**
   * Runs a prepared INSERT: true if it inserted its row. On PostgreSQL its {@code ON CONFLICT DO
   * NOTHING} reports a duplicate as 0 rows; on MariaDB/MySQL a duplicate key fails the statement
   * alone (error 1062), which is "not inserted". Every other error is thrown.
   */
  private static boolean insertUnlessDuplicate(PreparedStatement ps) throws SQLException {
    try {
      return ps.executeUpdate() > 0;
    } catch (SQLException e) {
      if (e.getErrorCode() == DUPLICATE_KEY) {
        return false;
      }
      throw e;
    }
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    outbox.signal();
    for (Thread t : threads) {
      t.join(10_000);
    }
  }

  /** Wakes waiting relays when outbox rows were committed in this process. */
  static final class Signal {
    private long generation;

    synchronized long generation() {
      return generation;
    }

    synchronized void signal() {
      generation++;
      notifyAll();
    }

    synchronized void await(long seen, long millis) throws InterruptedException {
      long deadline = System.currentTimeMillis() + millis;
      while (generation == seen) {
        long left = deadline - System.currentTimeMillis();
        if (left <= 0) {
          return;
        }
        wait(left);
      }
    }
  }
}
