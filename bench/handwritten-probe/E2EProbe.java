// A probe copy of ../shared/bench/handwritten/E2E.java (the yardstick of issue #42), same work and
// same four modes, plus what it measures per stage (docs/PERFORMANCE.md, round 15):
//   CPU line: the JVM's CPU per order (user + system), per thread group (producers, relay, consumer
//     workers, AMQP client threads), the rest (JIT, GC, VM threads), bytes allocated per order per
//     thread group, and the CPU of the PostgreSQL backends of the run's own connections
//     (application_name e2e, read from /proc: run it on the database's machine).
//   COUNT line (--count true): statements, commits, borrows and the time spent waiting for a pool
//     connection, per thread group and per order, through a counting proxy on the data source
//     (it costs CPU itself: take CPU figures from runs without it).
//   --hold false: in the once modes the producer threads do not hold a pool connection of their
//     own for the whole run. The yardstick's producers do (it opens one before choosing the mode):
//     four idle connections of the pool of 14 that Once's transactions cannot use, and Once then
//     waits for the pool (1.8 ms per consumer batch, 0.8 ms per producer transaction, measured).
//   --pool N: producers + workers + N connections (default 6, as the yardstick).
//   --mode handdb: the single-database pipeline by hand (issue #42, item 2): the producers write the
//     event row into a queue table hw_q beside the business row; 4 workers each claim a batch of 32
//     (DELETE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED) RETURNING), insert the inbox markers
//     and the effects and commit: claim, marker, effect and removal in one transaction; no relay.
//   --mode oncetable: Once on its table queue as its README shows it (TableQueueTransport on the same
//     data source, enqueueInProducerTransaction(true) where the build has it, one newRelay(),
//     workers(4)); no RabbitMQ involved.
//   --mode producersrelay / onceproducersrelay: the producers alone in the other shape of issue #42
//     item 3, a relay in their process: raw producers beside the two hand-written relays, against
//     Once's producers beside two of its relays (a queue bound to Once's exchange, no consumer).
//   --log info: the root log level (default: Logback's DEBUG, as the yardstick runs; a service logs
//     at INFO, and HikariCP's DEBUG lines cost Once far more than the hand-written code).
//   --stages true: each order's time per stage (commit, relay claim, confirms, mark sent, consumer
//     receive, consumer commit, acknowledgement) from Once's listener and the relay's claim statement
//     (a proxy on the relay threads' connections), or from the hand-written pipeline's own code; the
//     STAGES line gives p50/p90/p99 per stage and the relays' rows per batch.
//   --rate R: R orders/s over all producers (paced); 0 (default) as fast as they go.
//   --amqp URI: the RabbitMQ to use (default amqp://guest:guest@127.0.0.1:5672, the vhost /; a URI ending in / names the empty vhost); give a vhost of
//     your own (…:5672/NAME) when other benches share the broker.
// One run at a time per schema: every run drops its schema (hw, as the yardstick; --schema NAME for
// another), and the backends' CPU is read by application name (e2e, or e2e_NAME).
// Run from a clone after install: java -cp 'once-app/target/lib/*' bench/handwritten-probe/E2EProbe.java --mode once --n 20000 --count true
import com.rabbitmq.client.*;
import com.zaxxer.hikari.HikariDataSource;
import dev.once.*;
import dev.once.rabbitmq.RabbitTransport;
import java.nio.charset.StandardCharsets;
import java.sql.*;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;

public class E2EProbe {
  static String mode = "hand"; static int n = 20000, producers = 4, workers = 4, batch = 32, relayBatch = 200;
  static double rate = 0; static boolean stages = false, count = false, noHold = false; static int extraPool = 6; // orders/s over all producers; 0 = as fast as they go
  // a schema of its own, so that nothing here touches what other tools keep in the database
  static String schema = "hw", DB, AMQP = "amqp://guest:guest@127.0.0.1:5672"; // --schema: several probes side by side, each in its own schema
  static final String EX = "hw.orders", Q = "hw.orders.c";

  public static void main(String[] a) throws Exception {
    for (int i = 0; i < a.length; i += 2) {
      switch (a[i]) {
        case "--mode" -> mode = a[i + 1];
        case "--n" -> n = Integer.parseInt(a[i + 1]);
        case "--producers" -> producers = Integer.parseInt(a[i + 1]);
        case "--workers" -> workers = Integer.parseInt(a[i + 1]);
        case "--rate" -> rate = Double.parseDouble(a[i + 1]);
        case "--hold" -> noHold = !Boolean.parseBoolean(a[i + 1]);
        case "--stages" -> stages = Boolean.parseBoolean(a[i + 1]);
        case "--count" -> count = Boolean.parseBoolean(a[i + 1]);
        case "--pool" -> extraPool = Integer.parseInt(a[i + 1]);
        case "--schema" -> schema = a[i + 1];
        case "--amqp" -> AMQP = a[i + 1];
        case "--log" -> ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME))
            .setLevel(ch.qos.logback.classic.Level.toLevel(a[i + 1]));
        default -> throw new IllegalArgumentException(a[i]);
      }
    }
    if (!schema.matches("[a-z_][a-z0-9_]*")) throw new IllegalArgumentException("--schema " + schema);
    DB = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&currentSchema=" + schema + "&ApplicationName=" + PgCpu.app();
    try (java.sql.Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        Statement st = c.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
      st.execute("CREATE SCHEMA " + schema);
    }
    HikariDataSource ds = new HikariDataSource();
    ds.setJdbcUrl(DB); ds.setMaximumPoolSize(producers + workers + extraPool);
    setup(ds);
    St.init(n);
    ConnectionFactory f = new ConnectionFactory(); f.setUri(AMQP);
    if (!mode.equals("handdb") && !mode.equals("oncetable")) try (com.rabbitmq.client.Connection admin = f.newConnection(); Channel ch = admin.createChannel()) {
      ch.exchangeDeclare(EX, "topic", true);
      ch.queueDeclare(Q, true, false, false, Map.of("x-queue-type", "quorum"));
      ch.queueBind(Q, EX, "#"); ch.queuePurge(Q);
    }
    AutoCloseable pipeline = switch (mode) {
      case "hand" -> hand(count ? Counting.wrap(ds) : ds, f);
      case "once" -> once(count ? Counting.wrap(ds) : ds, true);
      case "onceproducers" -> once(count ? Counting.wrap(ds) : ds, false); // Once's producers alone: no relay, no consumer
      case "handdb" -> handDb(count ? Counting.wrap(ds) : ds);
      case "oncetable" -> onceTable(count ? Counting.wrap(ds) : ds);
      case "producers" -> () -> {};
      case "producersrelay" -> handRelays(count ? Counting.wrap(ds) : ds, f); // raw producers + the 2 hand-written relays, no consumer
      case "onceproducersrelay" -> onceRelays(count ? Counting.wrap(ds) : ds, f); // Once's producers + 2 relays, no consumer
      default -> throw new IllegalArgumentException(mode);
    };
    Thread.sleep(2000);
    long t0 = System.nanoTime();
    ExecutorService ps = Executors.newFixedThreadPool(producers);
    AtomicInteger next = new AtomicInteger(1);
    javax.sql.DataSource pds = count ? Counting.wrap(ds) : ds; Counting.cpuStart(); PgCpu.start(ds);
    for (int p = 0; p < producers; p++) ps.submit(() -> { Thread.currentThread().setName("producer-" + Thread.currentThread().getId()); long c0 = Cpu.self(), a0 = Cpu.alloc(Thread.currentThread().getId()); try { produce(pds, next); } catch (Exception e) { e.printStackTrace(); throw e; } Cpu.PRODUCERS.add(Cpu.self() - c0); Cpu.PALLOC.add(Cpu.alloc(Thread.currentThread().getId()) - a0); return null; });
    ps.shutdown(); ps.awaitTermination(1, TimeUnit.HOURS);
    double produced = (System.nanoTime() - t0) / 1e9;
    double done = produced;
    if (!mode.contains("producers")) {
      try (java.sql.Connection c = ds.getConnection(); PreparedStatement st = c.prepareStatement("SELECT count(*) FROM hw_effects")) {
        while (true) {
          ResultSet rs = st.executeQuery(); rs.next();
          if (rs.getLong(1) >= n) break;
          if ((System.nanoTime() - t0) / 1e9 > 900) throw new IllegalStateException("timeout");
          Thread.sleep(20);
        }
      }
      done = (System.nanoTime() - t0) / 1e9;
    }
    String cpu = Cpu.report(n) + PgCpu.report(ds, n);
    String counts = count ? Counting.report(n) : "";
    String lat = "", dup = "0";
    try (java.sql.Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      if (!mode.contains("producers")) {
        ResultSet rs = st.executeQuery("SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) FROM (SELECT extract(epoch FROM e.at - o.at) * 1000 AS ms FROM hw_effects e JOIN hw_orders o USING (order_id)) x");
        rs.next(); lat = String.format(" p50_ms=%.1f p99_ms=%.1f", rs.getDouble(1), rs.getDouble(2));
        rs = st.executeQuery("SELECT count(*) - count(DISTINCT order_id) FROM hw_effects"); rs.next(); dup = rs.getString(1);
      }
    }
    pipeline.close();
    System.out.printf("E2E mode=%s n=%d producers=%d workers=%d rate=%.0f produce_eps=%.0f e2e_eps=%.0f seconds=%.1f duplicate_effects=%s%s%n",
        mode, n, producers, workers, rate, n / produced, n / done, done, dup, lat);
    System.out.println("CPU mode=" + mode + " " + cpu);
    if (count) System.out.println("COUNT mode=" + mode + " " + counts);
    if (stages) System.out.println("STAGES mode=" + mode + St.report());
    ds.close();
    System.exit(0);
  }

  static void setup(HikariDataSource ds) throws SQLException {
    try (java.sql.Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute("DROP TABLE IF EXISTS hw_orders, hw_effects, hw_outbox, hw_inbox");
      st.execute("CREATE TABLE hw_orders (order_id bigint PRIMARY KEY, at timestamptz NOT NULL DEFAULT clock_timestamp())");
      st.execute("CREATE TABLE hw_effects (id bigserial PRIMARY KEY, order_id bigint NOT NULL, event_id text NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())");
      st.execute("CREATE TABLE hw_outbox (id bigserial PRIMARY KEY, event_id text NOT NULL UNIQUE, key text, payload text NOT NULL, sent_at timestamptz)");
      st.execute("CREATE INDEX hw_outbox_pending ON hw_outbox (id) WHERE sent_at IS NULL");
      st.execute("CREATE TABLE hw_inbox (consumer_id text NOT NULL, event_id text NOT NULL, PRIMARY KEY (consumer_id, event_id))");
      st.execute("CREATE TABLE hw_q (id bigserial PRIMARY KEY, event_id text NOT NULL, key text, payload text NOT NULL)");
      Schema.apply(ds);
    }
  }

  static Once ONCE;

  static void produce(javax.sql.DataSource ds, AtomicInteger next) throws Exception {
    boolean onceMode = mode.startsWith("once");
    try (java.sql.Connection c = onceMode && noHold ? null : ds.getConnection()) {
      PreparedStatement order = null, out = null;
      if (!(onceMode && noHold)) {
      c.setAutoCommit(false);
      order = c.prepareStatement("INSERT INTO hw_orders (order_id) VALUES (?)");
      out = c.prepareStatement("INSERT INTO " + (mode.equals("handdb") ? "hw_q" : "hw_outbox") + " (event_id, key, payload) VALUES (?, ?, ?)"); }
      long start = System.nanoTime();
      for (int i = next.getAndIncrement(); i <= n; i = next.getAndIncrement()) {
        if (rate > 0) { // order i is due at start + i / rate: a steady arrival rate, not a burst
          long due = start + (long) (i * 1e9 / rate), now = System.nanoTime();
          if (due > now) Thread.sleep((due - now) / 1_000_000, (int) ((due - now) % 1_000_000));
        }
        if (mode.startsWith("once")) {
          final int id = i;
          ONCE.inTransaction(tx -> {
            tx.update("INSERT INTO hw_orders (order_id) VALUES (?)", (long) id);
            return tx.publish(Event.of(EventId.of("hw-order", id), "hw-orders", Integer.toString(id), "Ordered", "{\"orderId\":" + id + "}"));
          });
          continue;
        }
        order.setLong(1, i); order.executeUpdate();
        out.setString(1, "hw-order:" + i); out.setString(2, Integer.toString(i)); out.setString(3, "{\"orderId\":" + i + "}"); out.executeUpdate();
        c.commit();
        St.at(St.COMMIT, i);
      }
    }
  }

  static AutoCloseable once(javax.sql.DataSource ds, boolean pipeline) {
    RabbitTransport rabbit = RabbitTransport.builder().uri(AMQP).build();
    ONCE = Once.builder().dataSource(stages ? St.relayTimed(ds) : ds).transport(rabbit).destinations("hw-orders").listener(St.listener()).build();
    if (!pipeline) return () -> { ONCE.close(); rabbit.close(); };
    ONCE.consumer("hw-c").subscribe("hw-orders", (tx, e) ->
        tx.update("INSERT INTO hw_effects (order_id, event_id) VALUES (?, ?)", Long.parseLong(e.key()), e.id().value()))
        .workers(workers).build().start();
    ONCE.newRelay().start(); ONCE.newRelay().start();
    return () -> { ONCE.close(); rabbit.close(); };
  }

  // Once on the table queue as its README shows it: the queue on the same data source (the same
  // object: a consumer batch's commit then deletes its rows), builder defaults, one newRelay().
  // The README's quick start: enqueueInProducerTransaction(true) where the build has it (found by
  // reflection, so that the probe still runs on an older build, which has TableQueueTransport.create).
  static dev.once.tablequeue.TableQueueTransport readmeQueue(javax.sql.DataSource ds) {
    dev.once.tablequeue.TableQueueTransport.Builder b = dev.once.tablequeue.TableQueueTransport.builder(ds);
    try {
      b.getClass().getMethod("enqueueInProducerTransaction", boolean.class).invoke(b, true);
    } catch (NoSuchMethodException e) {
      // an older build: every event through the outbox and the relay
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
    return b.build();
  }

  static AutoCloseable onceTable(javax.sql.DataSource ds) {
    dev.once.tablequeue.TableQueueTransport queue = readmeQueue(ds);
    ONCE = Once.builder().dataSource(ds).transport(queue).destinations("hw-orders").build();
    ONCE.consumer("hw-c").subscribe("hw-orders", (tx, e) ->
        tx.update("INSERT INTO hw_effects (order_id, event_id) VALUES (?, ?)", Long.parseLong(e.key()), e.id().value()))
        .workers(workers).build().start();
    ONCE.newRelay().start();
    return () -> { ONCE.close(); queue.close(); };
  }

  // The single-database pipeline by hand: producers write the event straight into the queue table
  // hw_q (no outbox, no relay); a worker claims, marks, applies and removes a batch in ONE
  // transaction. An empty claim sleeps 5 ms, as the hand relay does.
  static AutoCloseable handDb(javax.sql.DataSource ds) {
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> threads = new ArrayList<>();
    for (int w0 = 0; w0 < workers; w0++) { final int w = w0; threads.add(new Thread(() -> dbWorker(ds, stop), "handdb-worker-" + w)); }
    threads.forEach(Thread::start);
    return () -> { stop.set(true); for (Thread t : threads) t.join(5000); };
  }

  static void dbWorker(javax.sql.DataSource ds, AtomicBoolean stop) {
    try (java.sql.Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      PreparedStatement claim = c.prepareStatement("DELETE FROM hw_q WHERE id IN (SELECT id FROM hw_q ORDER BY id LIMIT " + batch + " FOR UPDATE SKIP LOCKED) RETURNING id, event_id, key, payload");
      PreparedStatement mark = c.prepareStatement("INSERT INTO hw_inbox (consumer_id, event_id) SELECT 'hw-c', e FROM unnest(?::text[]) AS u(e) ON CONFLICT DO NOTHING RETURNING event_id");
      PreparedStatement eff = c.prepareStatement("INSERT INTO hw_effects (order_id, event_id) VALUES (?, ?)");
      List<String[]> got = new ArrayList<>();
      while (!stop.get()) {
        got.clear();
        ResultSet rs = claim.executeQuery();
        while (rs.next()) got.add(new String[] {rs.getString(2), rs.getString(3), rs.getString(4)});
        if (got.isEmpty()) { c.commit(); Thread.sleep(5); continue; }
        mark.setArray(1, c.createArrayOf("text", got.stream().map(g -> g[0]).toArray()));
        Set<String> inserted = new HashSet<>();
        rs = mark.executeQuery(); while (rs.next()) inserted.add(rs.getString(1));
        for (String[] g : got) {
          if (!inserted.remove(g[0])) continue;
          eff.setLong(1, Long.parseLong(g[1])); eff.setString(2, g[0]); eff.addBatch();
        }
        eff.executeBatch();
        c.commit();
      }
    } catch (Exception e) { if (!stop.get()) e.printStackTrace(); }
  }

  // The producers with a relay in their process and no consumer (issue #42 item 3, second shape): the
  // hand-written relays, or Once's two with a queue bound to its exchange (else every row is
  // unroutable and stays pending, retried).
  static AutoCloseable handRelays(javax.sql.DataSource ds, ConnectionFactory f) throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> threads = new ArrayList<>();
    com.rabbitmq.client.Connection conn = f.newConnection();
    for (int r0 = 0; r0 < 2; r0++) { final int r = r0; threads.add(new Thread(() -> relay(ds, conn, stop), "hand-relay-" + r)); }
    threads.forEach(Thread::start);
    return () -> { stop.set(true); for (Thread t : threads) t.join(5000); conn.close(); };
  }

  static AutoCloseable onceRelays(javax.sql.DataSource ds, ConnectionFactory f) throws Exception {
    RabbitTransport rabbit = RabbitTransport.builder().uri(AMQP).build();
    try (com.rabbitmq.client.Connection admin = f.newConnection(); Channel ch = admin.createChannel()) {
      String ex = rabbit.exchangeName("hw-orders");
      ch.exchangeDeclare(ex, "topic", true);
      ch.queueDeclare(Q + ".once", true, false, false, Map.of("x-queue-type", "quorum"));
      ch.queueBind(Q + ".once", ex, "#"); ch.queuePurge(Q + ".once");
    }
    ONCE = Once.builder().dataSource(ds).transport(rabbit).destinations("hw-orders").build();
    ONCE.newRelay().start(); ONCE.newRelay().start();
    return () -> { ONCE.close(); rabbit.close(); };
  }

  static AutoCloseable hand(javax.sql.DataSource ds, ConnectionFactory f) throws Exception {
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> threads = new ArrayList<>();
    com.rabbitmq.client.Connection conn = f.newConnection();
    for (int r0 = 0; r0 < 2; r0++) { final int r = r0; threads.add(new Thread(() -> relay(ds, conn, stop), "hand-relay-" + r)); }
    for (int w0 = 0; w0 < workers; w0++) { final int w = w0; threads.add(new Thread(() -> worker(ds, conn, stop), "hand-worker-" + w)); }
    threads.forEach(Thread::start);
    return () -> { stop.set(true); for (Thread t : threads) t.join(5000); conn.close(); };
  }

  static void relay(javax.sql.DataSource ds, com.rabbitmq.client.Connection conn, AtomicBoolean stop) {
    try (java.sql.Connection c = ds.getConnection(); Channel ch = conn.createChannel()) {
      ch.confirmSelect();
      c.setAutoCommit(false);
      PreparedStatement pick = c.prepareStatement("SELECT id, event_id, key, payload FROM hw_outbox WHERE sent_at IS NULL ORDER BY id LIMIT " + relayBatch + " FOR UPDATE SKIP LOCKED");
      PreparedStatement mark = c.prepareStatement("UPDATE hw_outbox SET sent_at = now() WHERE id = ANY (?)");
      while (!stop.get()) {
        long c0 = System.nanoTime();
        ResultSet rs = pick.executeQuery();
        if (stages) St.CLAIMS.increment();
        long c1 = System.nanoTime();
        List<Long> ids = new ArrayList<>();
        List<String> evs = new ArrayList<>();
        while (rs.next()) {
          ids.add(rs.getLong(1)); evs.add(rs.getString(2));
          AMQP.BasicProperties p = new AMQP.BasicProperties.Builder().messageId(rs.getString(2)).deliveryMode(2).build();
          ch.basicPublish(EX, rs.getString(3), p, rs.getString(4).getBytes(StandardCharsets.UTF_8));
        }
        if (ids.isEmpty()) { c.commit(); Thread.sleep(5); continue; }
        ch.waitForConfirmsOrDie(10_000);
        long c3 = System.nanoTime();
        mark.setArray(1, c.createArrayOf("bigint", ids.toArray())); mark.executeUpdate();
        c.commit();
        if (stages) { long c4 = System.nanoTime(); St.batch(evs.size()); for (String e : evs) { int i = St.idx(e); St.set(St.CLAIM0, i, c0); St.set(St.CLAIM1, i, c1); St.set(St.CONFIRMED, i, c3); St.set(St.MARKED, i, c4); } }
      }
    } catch (Exception e) { if (!stop.get()) e.printStackTrace(); }
  }

  static void worker(javax.sql.DataSource ds, com.rabbitmq.client.Connection conn, AtomicBoolean stop) {
    try (java.sql.Connection c = ds.getConnection(); Channel ch = conn.createChannel()) {
      c.setAutoCommit(false);
      ch.basicQos(batch * 2);
      BlockingQueue<Delivery> q = new LinkedBlockingQueue<>();
      ch.basicConsume(Q, false, (tag, d) -> q.add(d), tag -> {});
      PreparedStatement mark = c.prepareStatement("INSERT INTO hw_inbox (consumer_id, event_id) SELECT 'hw-c', e FROM unnest(?::text[]) AS u(e) ON CONFLICT DO NOTHING RETURNING event_id");
      PreparedStatement eff = c.prepareStatement("INSERT INTO hw_effects (order_id, event_id) VALUES (?, ?)");
      List<Delivery> got = new ArrayList<>();
      while (!stop.get()) {
        Delivery first = q.poll(50, TimeUnit.MILLISECONDS);
        if (first == null) continue;
        got.clear(); got.add(first); q.drainTo(got, batch - 1);
        long r0 = System.nanoTime();
        String[] ids = got.stream().map(d -> d.getProperties().getMessageId()).toArray(String[]::new);
        mark.setArray(1, c.createArrayOf("text", ids));
        Set<String> inserted = new HashSet<>();
        ResultSet rs = mark.executeQuery(); while (rs.next()) inserted.add(rs.getString(1));
        for (Delivery d : got) {
          String id = d.getProperties().getMessageId();
          if (!inserted.remove(id)) continue;
          eff.setLong(1, Long.parseLong(d.getEnvelope().getRoutingKey())); eff.setString(2, id); eff.addBatch();
        }
        eff.executeBatch();
        c.commit();
        long r1 = System.nanoTime();
        ch.basicAck(got.get(got.size() - 1).getEnvelope().getDeliveryTag(), true);
        if (stages) { long r2 = System.nanoTime(); for (Delivery d : got) { int i = St.idx(d.getProperties().getMessageId()); St.set(St.RECEIVED, i, r0); St.set(St.COMMITTED, i, r1); St.set(St.ACKED, i, r2); } }
      }
    } catch (Exception e) { if (!stop.get()) e.printStackTrace(); }
  }
}

class Cpu {
  static final java.util.concurrent.atomic.LongAdder PRODUCERS = new java.util.concurrent.atomic.LongAdder();
  static final java.lang.management.ThreadMXBean T = java.lang.management.ManagementFactory.getThreadMXBean();
  static long proc0; static Map<Long, Long> base = new HashMap<>();
  static long self() { return T.getCurrentThreadCpuTime(); }
  static long proc() { return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime(); }
  static long gc0, jit0; static Map<Long, Long> abase = new HashMap<>();
  static final java.util.concurrent.atomic.LongAdder PALLOC = new java.util.concurrent.atomic.LongAdder();
  static long alloc(long id) { return ((com.sun.management.ThreadMXBean) T).getThreadAllocatedBytes(id); }
  static long gc() { long t = 0; for (var g : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) t += g.getCollectionTime(); return t; }
  static long jit() { return java.lang.management.ManagementFactory.getCompilationMXBean().getTotalCompilationTime(); }
  static void start() { proc0 = proc(); gc0 = gc(); jit0 = jit(); for (long id : T.getAllThreadIds()) { base.put(id, T.getThreadCpuTime(id)); abase.put(id, alloc(id)); } }
  static String report(int n) {
    long proc = proc() - proc0;
    Map<String, Long> by = new TreeMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      long c = T.getThreadCpuTime(t.getId()); if (c < 0) continue;
      c -= base.getOrDefault(t.getId(), 0L);
      String g = t.getName().replaceAll("[-_ ]?[0-9]+$", "").replaceAll("-[0-9]+-", "-").replaceAll("[0-9]+", "#");
      by.merge(g, c, Long::sum);
    }
    by.put("producers(measured)", PRODUCERS.sum());
    Map<String, Long> al = new TreeMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      long c = alloc(t.getId()); if (c < 0) continue; c -= abase.getOrDefault(t.getId(), 0L);
      String g = t.getName().replaceAll("[-_ ]?[0-9]+$", "").replaceAll("-[0-9]+-", "-").replaceAll("[0-9]+", "#");
      al.merge(g, c, Long::sum);
    }
    al.put("producers(measured)", PALLOC.sum());
    StringBuilder as = new StringBuilder(" alloc_B_per_order:");
    al.entrySet().stream().sorted((x, y) -> Long.compare(y.getValue(), x.getValue())).filter(e -> e.getValue() > 1e6)
      .forEach(e -> as.append(String.format(" [%s]=%.0f", e.getKey(), e.getValue() / (double) n)));
    long threadsSum = by.entrySet().stream().filter(e -> !e.getKey().startsWith("producer")).mapToLong(Map.Entry::getValue).sum() + PRODUCERS.sum();
    StringBuilder sb = new StringBuilder(String.format("proc_us_per_order=%.1f", proc / 1e3 / n));
    by.entrySet().stream().sorted((x, y) -> Long.compare(y.getValue(), x.getValue())).filter(e -> e.getValue() > 1e6 * 50)
      .forEach(e -> sb.append(String.format(" [%s]=%.1f", e.getKey(), e.getValue() / 1e3 / n)));
    sb.append(String.format(" other(jit+gc+vm)_us_per_order=%.1f gc_ms=%d jit_ms=%d", (proc - threadsSum) / 1e3 / n, gc() - gc0, jit() - jit0));
    return sb.toString() + as;
  }
}

class Counting {
  static void cpuStart() { Cpu.start(); reset(); }
  static final ConcurrentHashMap<String, java.util.concurrent.atomic.LongAdder> C = new ConcurrentHashMap<>();
  static final ConcurrentHashMap<String, java.util.concurrent.atomic.LongAdder> SQL = new ConcurrentHashMap<>();
  static volatile boolean on = false;
  static final AtomicInteger ACTIVE = new AtomicInteger(), MAX = new AtomicInteger();
  static final ThreadLocal<int[]> HELD = ThreadLocal.withInitial(() -> new int[1]);
  static final ConcurrentHashMap<String, AtomicInteger> BYG = new ConcurrentHashMap<>();
  static final ConcurrentHashMap<Integer, String> SNAP = new ConcurrentHashMap<>();
  static void reset() { C.clear(); SQL.clear(); on = true; }
  static String group() { String n = Thread.currentThread().getName(); return n.replaceAll("[-_ ]?[0-9]+$", "").replaceAll("[0-9]+", "#"); }
  static void inc(String what) { if (on) C.computeIfAbsent(group() + "." + what, k -> new java.util.concurrent.atomic.LongAdder()).increment(); }
  static void sql(String s) { if (on) SQL.computeIfAbsent(group() + ": " + s.replaceAll("\\s+", " ").substring(0, Math.min(110, s.replaceAll("\\s+", " ").length())), k -> new java.util.concurrent.atomic.LongAdder()).increment(); }
  static String report(int n) {
    on = false;
    StringBuilder sb = new StringBuilder();
    new TreeMap<>(C).forEach((k, v) -> sb.append(String.format("%n  %s=%d (%.3f/order)", k, v.sum(), v.sum() / (double) n)));
    sb.append("\n  max_borrowed_through_counting=" + MAX.get() + " at " + SNAP.get(MAX.get()) + " now " + BYG);
    sb.append("\n SQL:");
    new TreeMap<>(SQL).forEach((k, v) -> sb.append(String.format("%n  %7d %.3f/order  %s", v.sum(), v.sum() / (double) n, k)));
    return sb.toString();
  }
  @SuppressWarnings("unchecked")
  static <T> T proxy(Class<T> type, Object target, String sql) {
    return (T) java.lang.reflect.Proxy.newProxyInstance(Counting.class.getClassLoader(), new Class<?>[] {type}, (p, m, a) -> {
      String name = m.getName();
      try {
        switch (name) {
          case "getConnection" -> { inc("getConnection"); long w0 = System.nanoTime(); Object c = m.invoke(target, a); long w = System.nanoTime() - w0;
            if (on) { C.computeIfAbsent(group() + ".getConnection_wait_us", k -> new java.util.concurrent.atomic.LongAdder()).add(w / 1000); if (w > 1_000_000) inc("getConnection_over_1ms"); }
            int now = ACTIVE.incrementAndGet(); MAX.accumulateAndGet(now, Math::max); int mine = HELD.get()[0]++; if (mine > 0 && on) inc("getConnection_while_holding_" + mine);
            if (on) { Map<String, Integer> snap = new TreeMap<>(); BYG.forEach((k, v) -> snap.put(k, v.get())); BYG.computeIfAbsent(group(), k -> new AtomicInteger()).incrementAndGet(); if (now >= MAX.get() - 0) SNAP.put(now, snap.toString() + "+" + group()); } else BYG.computeIfAbsent(group(), k -> new AtomicInteger()).incrementAndGet(); return proxy(java.sql.Connection.class, c, null); }
          case "prepareStatement" -> { return proxy(PreparedStatement.class, m.invoke(target, a), (String) a[0]); }
          case "prepareCall" -> { return proxy(CallableStatement.class, m.invoke(target, a), (String) a[0]); }
          case "createStatement" -> { return proxy(Statement.class, m.invoke(target, a), null); }
          case "commit", "rollback", "setAutoCommit", "close", "isValid" -> { if (!(target instanceof Statement)) { inc(name); if (name.equals("close")) { ACTIVE.decrementAndGet(); HELD.get()[0]--; BYG.computeIfAbsent(group(), k -> new AtomicInteger()).decrementAndGet(); } } }
          case "execute", "executeQuery", "executeUpdate", "executeBatch", "executeLargeUpdate", "executeLargeBatch" -> {
            inc("statement"); String q = sql != null ? sql : (a != null && a.length > 0 && a[0] instanceof String s2 ? s2 : "?"); sql(name + " " + q); }
        }
        return m.invoke(target, a);
      } catch (java.lang.reflect.InvocationTargetException e) { throw e.getCause(); }
    });
  }
  static javax.sql.DataSource wrap(javax.sql.DataSource ds) { return proxy(javax.sql.DataSource.class, ds, null); }
}

class PgCpu {
  static String app() { return E2EProbe.schema.equals("hw") ? "e2e" : "e2e_" + E2EProbe.schema; }
  static Map<Integer, Long> base = new HashMap<>();
  static Map<Integer, Long> read(javax.sql.DataSource ds) {
    Map<Integer, Long> m = new HashMap<>();
    try (java.sql.Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pid FROM pg_stat_activity WHERE application_name = '" + app() + "'")) {
      while (rs.next()) { int pid = rs.getInt(1);
        try { String[] f = new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/" + pid + "/stat"))).replaceAll("^.*\\) ", "").split(" ");
          m.put(pid, (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000L); } catch (Exception e) { } }
    } catch (SQLException e) { throw new RuntimeException(e); }
    return m;
  }
  static void start(javax.sql.DataSource ds) { base = read(ds); }
  static String report(javax.sql.DataSource ds, int n) {
    Map<Integer, Long> now = read(ds); long sum = 0;
    for (var e : now.entrySet()) sum += e.getValue() - base.getOrDefault(e.getKey(), 0L);
    return String.format(" pg_backends_us_per_order=%.1f (%d backends)", sum / (double) n, now.size());
  }
}

// --stages: one timestamp (System.nanoTime) per order and stage; an order is "hw-order:<i>".
class St {
  static final int COMMIT = 0, CLAIM0 = 1, CLAIM1 = 2, CONFIRMED = 3, MARKED = 4, RECEIVED = 5, COMMITTED = 6, ACKED = 7;
  static final String[] NAMES = {"commit", "claim_start", "claim_end", "confirmed", "marked_sent", "received", "consumer_commit", "acked"};
  static long[][] t;
  static final java.util.concurrent.atomic.LongAdder BATCHES = new java.util.concurrent.atomic.LongAdder(), ROWS = new java.util.concurrent.atomic.LongAdder();
  static final ThreadLocal<long[]> CLAIM = ThreadLocal.withInitial(() -> new long[2]);
  static void init(int n) { t = new long[8][n + 1]; }
  static int idx(String eventId) { return Integer.parseInt(eventId.substring(eventId.indexOf(':') + 1)); }
  static void set(int stage, int i, long v) { if (i > 0 && i < t[stage].length && t[stage][i] == 0) t[stage][i] = v; }
  static void at(int stage, int i) { if (E2EProbe.stages) set(stage, i, System.nanoTime()); }
  static void batch(int rows) { BATCHES.increment(); ROWS.add(rows); }
  static final java.util.concurrent.atomic.LongAdder CLAIMS = new java.util.concurrent.atomic.LongAdder();
  static OnceListener listener() {
    if (!E2EProbe.stages) return OnceListener.NOOP;
    return new OnceListener() {
      public void producerCommitted(List<Event> events) { long now = System.nanoTime(); for (Event e : events) set(COMMIT, idx(e.id().value()), now); }
      public void published(List<Event> events) { long now = System.nanoTime(); long[] cl = CLAIM.get(); batch(events.size()); for (Event e : events) { int i = idx(e.id().value()); set(CLAIM0, i, cl[0]); set(CLAIM1, i, cl[1]); set(CONFIRMED, i, now); } }
      public void markedSent(List<Event> events, java.time.Duration age) { long now = System.nanoTime(); for (Event e : events) set(MARKED, idx(e.id().value()), now); }
      public void received(List<ReceivedEvent> batch) { long now = System.nanoTime(); for (ReceivedEvent e : batch) set(RECEIVED, idx(e.id().value()), now); }
      public void committed(List<ReceivedEvent> events) { long now = System.nanoTime(); for (ReceivedEvent e : events) set(COMMITTED, idx(e.id().value()), now); }
      public void outcome(ReceivedEvent e, Outcome o, java.time.Duration since) { set(ACKED, idx(e.id().value()), System.nanoTime()); }
    };
  }
  // the relay threads' connections: the claim statement's execute is timed (start, end)
  @SuppressWarnings("unchecked")
  static <T> T timed(Class<T> type, Object target, boolean claim) {
    return (T) java.lang.reflect.Proxy.newProxyInstance(St.class.getClassLoader(), new Class<?>[] {type}, (p, m, a) -> {
      try {
        if (m.getName().equals("prepareStatement") && a != null && a[0] instanceof String q)
          return timed(PreparedStatement.class, m.invoke(target, a), q.contains("relay_share"));
        if (claim && m.getName().equals("execute")) { long[] cl = CLAIM.get(); CLAIMS.increment(); cl[0] = System.nanoTime(); Object r = m.invoke(target, a); cl[1] = System.nanoTime(); return r; }
        return m.invoke(target, a);
      } catch (java.lang.reflect.InvocationTargetException e) { throw e.getCause(); }
    });
  }
  static javax.sql.DataSource relayTimed(javax.sql.DataSource ds) {
    return (javax.sql.DataSource) java.lang.reflect.Proxy.newProxyInstance(St.class.getClassLoader(), new Class<?>[] {javax.sql.DataSource.class}, (p, m, a) -> {
      try {
        Object r = m.invoke(ds, a);
        if (m.getName().equals("getConnection") && Thread.currentThread().getName().startsWith("once-relay")) return timed(java.sql.Connection.class, r, false);
        return r;
      } catch (java.lang.reflect.InvocationTargetException e) { throw e.getCause(); }
    });
  }
  // e2e p50/p99 per tenth of the run's orders, and the stages of the first tenth: how the warm-up goes
  static String windows() {
    StringBuilder sb = new StringBuilder(String.format("%n  e2e p50/p99 per tenth:"));
    int w = (t[0].length - 1) / 10;
    for (int k = 0; k < 10; k++) {
      long[] d = new long[w]; int m = 0;
      for (int i = 1 + k * w; i < 1 + (k + 1) * w; i++) if (t[COMMIT][i] != 0 && t[COMMITTED][i] != 0) d[m++] = t[COMMITTED][i] - t[COMMIT][i];
      long[] s = Arrays.copyOf(d, m); Arrays.sort(s); sb.append(" ").append(pct(s, m, .5)).append("/").append(pct(s, m, .99));
    }
    // the slowest orders after the warm-up: when (s after the first commit) and where their time went
    Integer[] idx = new Integer[t[0].length - 1];
    for (int i = 0; i < idx.length; i++) idx[i] = i + 1;
    long t0 = t[COMMIT][1];
    Arrays.sort(idx, (x, y) -> Long.compare(lat(y), lat(x)));
    sb.append(String.format("%n  slowest after the first third (at s: pickup, claim, to confirmed, to received, consumer, ms):"));
    int shown = 0; long lastAt = Long.MIN_VALUE;
    for (Integer i : idx) {
      if (i < w * 10 / 3 || t[COMMITTED][i] == 0 || t[CLAIM0][i] == 0) continue;
      if (Math.abs(t[COMMIT][i] - lastAt) < 300_000_000L) continue; // one per stall
      lastAt = t[COMMIT][i];
      sb.append(String.format(" [%.2f: %.0f %.0f %.0f %.0f %.0f]", (t[COMMIT][i] - t0) / 1e9, (t[CLAIM0][i] - t[COMMIT][i]) / 1e6, (t[CLAIM1][i] - t[CLAIM0][i]) / 1e6,
          (t[CONFIRMED][i] - t[CLAIM1][i]) / 1e6, (t[RECEIVED][i] - t[CONFIRMED][i]) / 1e6, (t[COMMITTED][i] - t[RECEIVED][i]) / 1e6));
      if (++shown == 6) break;
    }
    return sb + String.format("%n  first tenth:") + span("pickup", COMMIT, CLAIM0, 1, w) + span("claim", CLAIM0, CLAIM1, 1, w) + span("claim_end->confirmed", CLAIM1, CONFIRMED, 1, w)
      + span("confirmed->received", CONFIRMED, RECEIVED, 1, w) + span("received->consumer_commit", RECEIVED, COMMITTED, 1, w);
  }
  static long lat(int i) { return t[COMMITTED][i] == 0 || t[COMMIT][i] == 0 ? -1 : t[COMMITTED][i] - t[COMMIT][i]; }
  static String pct(long[] v, int k, double q) { return k == 0 ? "-" : String.format("%.1f", v[Math.min(k - 1, (int) Math.ceil(q * k) - 1)] / 1e6); }
  static String span(String name, int from, int to) { return span(name, from, to, 1, t[0].length); }
  static String span(String name, int from, int to, int first, int end) {
    long[] d = new long[t[0].length]; int k = 0;
    for (int i = first; i < end; i++) if (t[from][i] != 0 && t[to][i] != 0) d[k++] = t[to][i] - t[from][i];
    long[] s = Arrays.copyOf(d, k); Arrays.sort(s);
    return String.format("%n  %-28s n=%-6d p50=%s p90=%s p99=%s max=%s", name, k, pct(s, k, .5), pct(s, k, .9), pct(s, k, .99), k == 0 ? "-" : String.format("%.1f", s[k - 1] / 1e6));
  }
  static String report() {
    int from = t[0].length / 3, end = t[0].length; // the stages after the first third (the JVM's warm-up)
    return String.format(" relay_batches=%d rows_per_batch=%.2f claims=%d; stages of the last two thirds, ms:", BATCHES.sum(), ROWS.sum() / (double) Math.max(1, BATCHES.sum()), CLAIMS.sum())
      + span("commit->claim_start (pickup)", COMMIT, CLAIM0, from, end) + span("claim (round trip)", CLAIM0, CLAIM1, from, end)
      + span("claim_end->confirmed", CLAIM1, CONFIRMED, from, end) + span("confirmed->marked_sent", CONFIRMED, MARKED, from, end)
      + span("confirmed->received", CONFIRMED, RECEIVED, from, end) + span("received->consumer_commit", RECEIVED, COMMITTED, from, end)
      + span("consumer_commit->acked", COMMITTED, ACKED, from, end)
      + span("commit->confirmed", COMMIT, CONFIRMED, from, end)
      + span("e2e, first third", COMMIT, COMMITTED, 1, t[0].length / 3)
      + span("e2e, last two thirds", COMMIT, COMMITTED, t[0].length / 3, t[0].length) + windows();
  }
}
