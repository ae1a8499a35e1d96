package dev.once.bench.e2e;

import dev.once.bench.e2e.HandBroker.Msg;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;

/**
 * Ceiling C: a hand-written pipeline doing exactly the work Once does, with no library — what a
 * team would write themselves. Producers (raw JDBC) commit a business row and an outbox row per
 * order; relays take a batch of pending outbox rows {@code FOR UPDATE SKIP LOCKED}, publish it,
 * wait for the broker's confirms, mark the rows sent and commit; consumers ({@link HandConsumer})
 * take a batch, insert its markers and effects, commit, then acknowledge. Same threads, batch sizes
 * and broker as Once's run; its own tables ({@link HandSchema}, {@code bench_c_*}), so that nothing
 * of Once's is read or written. Its producers alone are ceiling P: raw JDBC, a business row and an
 * outbox row per order in one transaction.
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

  private final DataSource dataSource;
  private final HandBroker broker;
  private final BenchSettings s;
  private final Shape shape;
  private final boolean mariadb;
  private final String insertOutbox;
  private final AtomicLong conflicts = new AtomicLong();
  private final E2eTimings timings = new E2eTimings(BenchTables.C_IN, BenchTables.C_CONSUMER);
  private final HandSteps steps = new HandSteps();
  private final Signal outbox = new Signal();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final List<Thread> threads = new ArrayList<>();
  private final HandConsumer consumer;
  private volatile boolean running = true;
  private boolean started;

  HandPipeline(DataSource dataSource, HandBroker broker, BenchSettings s, Shape shape) {
    this.dataSource = dataSource;
    this.broker = broker;
    this.s = s;
    this.shape = shape;
    this.mariadb = BenchTables.isMariaDb(dataSource);
    this.insertOutbox = mariadb ? HandSchema.INSERT_OUTBOX_MARIADB : HandSchema.INSERT_OUTBOX;
    this.consumer =
        new HandConsumer(dataSource, broker, s, shape, mariadb, conflicts, timings, outbox, steps);
    BenchTables.run(
        dataSource,
        mariadb
            ? HandSchema.CREATE_MARIADB + HandSchema.CLEAR_MARIADB
            : HandSchema.CREATE + HandSchema.CLEAR);
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

  /** Where the relays' and consumers' time went so far, step by step. */
  HandSteps steps() {
    return steps;
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
    startSettled();
    Producers.fullSpeed(this::produce, s.producers(), s.producerBatch(), 1, s.events());
    await(s.events());
    return timings.eps(1, s.events() + 1L);
  }

  /**
   * Ceiling P: the producers alone, nothing else running; orders per second. Raw JDBC, {@code
   * s.producerBatch()} orders per transaction, each a business row and an outbox row.
   */
  double producersAlone() throws Exception {
    double seconds =
        Producers.fullSpeed(this::produce, s.producers(), s.producerBatch(), 1, s.events());
    return s.events() / seconds;
  }

  /**
   * The paced run: relays and consumers running (started if they were not), orders [first, first +
   * n) committed one per transaction by {@code s.latencyProducers()} threads at {@code rate};
   * returns the rate achieved. Their latencies: {@link #timings()}.
   */
  double paced(long first, long n, double rate) throws Exception {
    startSettled();
    double achieved = Producers.paced(this::produce, s.latencyProducers(), first, n, rate);
    await(first - 1 + n);
    return achieved;
  }

  /**
   * Starts relays and consumers and waits until every consumer can receive (on Kafka: its group
   * stable, every partition assigned), so that a measured run does not time the joins.
   */
  private void startSettled() throws Exception {
    boolean joining = !started;
    start();
    if (joining) {
      broker.awaitConsumers(BenchTables.C_IN, s.workers());
      if (shape == Shape.TWO_HOPS) {
        broker.awaitConsumers(BenchTables.C_DISPATCH, s.workers());
      }
    }
  }

  private void start() {
    if (!started) {
      started = true;
      startConsumers();
      startRelays();
    }
  }

  /**
   * As the drain bench: the producers commit every order first ({@code s.producerBatch()} per
   * transaction), then relays and consumer start; the clock runs until the last effect is committed
   * and the last outgoing event published.
   */
  double drain() throws Exception {
    Producers.fullSpeed(this::produce, s.producers(), s.producerBatch(), 1, s.events());
    long start = System.nanoTime();
    start();
    await(s.events());
    long deadline = System.nanoTime() + s.timeoutSeconds() * 1_000_000_000L;
    while (BenchTables.count(dataSource, HandSchema.PENDING) > 0) {
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
      try (PreparedStatement order = c.prepareStatement(HandSchema.INSERT_ORDER);
          PreparedStatement out = c.prepareStatement(insertOutbox)) {
        for (long id = from; id < to; id++) {
          order.setLong(1, id);
          order.executeUpdate();
          out.setString(1, "bench-paid:" + id);
          out.setString(2, BenchTables.C_IN);
          out.setString(3, Long.toString(id));
          out.setString(4, "BenchPaid");
          out.setBytes(5, Pipeline.payload(id).getBytes(StandardCharsets.UTF_8));
          HandSchema.insertUnlessDuplicate(out);
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
          () ->
              consumer.loop(
                  BenchTables.C_IN, BenchTables.C_CONSUMER, shape != Shape.ONE_HOP, this::running));
      if (twoHops) {
        spawn(
            "c-notifier-" + i,
            () ->
                consumer.loop(
                    BenchTables.C_DISPATCH, BenchTables.C_NOTIFIER, false, this::running));
      }
    }
  }

  private boolean running() {
    return running;
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
          st.execute(
              mariadb
                  ? "SET TRANSACTION ISOLATION LEVEL READ COMMITTED"
                  : HandSchema.RELAY_SETTINGS);
        }
        List<Long> ids = new ArrayList<>();
        List<Msg> batch = new ArrayList<>();
        long t = System.nanoTime();
        try (PreparedStatement ps = c.prepareStatement(HandSchema.CLAIM_OUTBOX)) {
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
        if (batch.isEmpty()) {
          c.commit();
          return 0;
        }
        steps.add(HandSteps.Step.RELAY_CLAIM, batch.size(), t);
        t = System.nanoTime();
        publisher.publishConfirmed(batch);
        timings.confirmed(batch.stream().map(m -> Long.parseLong(m.key())).toList());
        steps.add(HandSteps.Step.RELAY_PUBLISH, batch.size(), t);
        t = System.nanoTime();
        markSent(c, ids);
        c.commit();
        steps.add(HandSteps.Step.RELAY_MARK, batch.size(), t);
        return batch.size();
      } catch (Exception e) {
        c.rollback();
        throw e;
      }
    }
  }

  private void markSent(Connection c, List<Long> ids) throws SQLException {
    if (!mariadb) {
      try (PreparedStatement ps = c.prepareStatement(HandSchema.MARK_SENT)) {
        ps.setArray(1, c.createArrayOf("bigint", ids.toArray()));
        ps.executeUpdate();
      }
      return;
    }
    String in = String.join(", ", java.util.Collections.nCopies(ids.size(), "?"));
    try (PreparedStatement ps = c.prepareStatement(HandSchema.MARK_SENT_MARIADB.formatted(in))) {
      for (int i = 0; i < ids.size(); i++) {
        ps.setLong(i + 1, ids.get(i));
      }
      ps.executeUpdate();
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
