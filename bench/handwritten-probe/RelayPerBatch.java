import com.rabbitmq.client.*;
import com.zaxxer.hikari.HikariDataSource;
import dev.once.*;
import dev.once.rabbitmq.RabbitTransport;
import java.nio.charset.StandardCharsets;
import java.sql.*;
import java.util.*;

// CPU and bytes per event of one relay batch of K rows on the calling thread, warm, with nothing else
// running in the process: Once's relay.runOnce() against the hand-written relay of E2EProbe (SELECT …
// FOR UPDATE SKIP LOCKED LIMIT 200, basicPublish with message-id and delivery mode, waitForConfirms,
// UPDATE … SET sent_at = now() WHERE id = ANY (?), commit), which borrows its connection and prepares
// its two statements per batch as Once does ("borrow") or holds them for the run ("held").
// It says what a batch's code path costs, apart from the pipeline's wake-ups, pool waits and warm-up.
//   java -cp 'once-app/target/lib/*' bench/handwritten-probe/RelayPerBatch.java once|borrow|held K WARM ROUNDS SCHEMA AMQP_URI
// drops and creates SCHEMA; uses the exchange rb.orders and the queue rb.orders.c (hand) or Once's
// own for destination rb-orders (a queue bound to its exchange) in the vhost of AMQP_URI.
public class RelayPerBatch {
  static final com.sun.management.ThreadMXBean T = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
  static long cpu, bytes, events;

  public static void main(String[] a) throws Exception {
    String mode = a[0], schema = a[4], amqp = a[5];
    int k = Integer.parseInt(a[1]), warm = Integer.parseInt(a[2]), rounds = Integer.parseInt(a[3]);
    if (!schema.matches("[a-z_][a-z0-9_]*")) throw new IllegalArgumentException(schema);
    try (java.sql.Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test?user=postgres"); Statement st = c.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE"); st.execute("CREATE SCHEMA " + schema);
      st.execute("CREATE TABLE " + schema + ".hw_outbox (id bigserial PRIMARY KEY, event_id text NOT NULL UNIQUE, key text, payload text NOT NULL, sent_at timestamptz)");
      st.execute("CREATE INDEX ON " + schema + ".hw_outbox (id) WHERE sent_at IS NULL");
    }
    ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(ch.qos.logback.classic.Level.WARN);
    HikariDataSource ds = new HikariDataSource();
    ds.setJdbcUrl("jdbc:postgresql://127.0.0.1:5432/test?user=postgres&currentSchema=" + schema); ds.setMaximumPoolSize(4);
    ConnectionFactory f = new ConnectionFactory(); f.setUri(amqp);
    try (com.rabbitmq.client.Connection conn = f.newConnection(); Channel ch = conn.createChannel()) {
      if (mode.equals("once")) once(ds, amqp, ch, k, warm, rounds); else hand(ds, ch, mode.equals("borrow"), k, warm, rounds);
    } finally { ds.close(); }
    System.out.printf("RELAY mode=%s k=%d rounds=%d cpu_us_per_event=%.1f alloc_B_per_event=%.0f%n", mode, k, rounds, cpu / 1000.0 / events, bytes / (double) events);
  }

  static void measure(int r, int warm, int k, long t0, long a0) {
    long me = Thread.currentThread().getId();
    if (r >= warm) { cpu += T.getCurrentThreadCpuTime() - t0; bytes += T.getThreadAllocatedBytes(me) - a0; events += k; }
  }

  static void once(HikariDataSource ds, String amqp, Channel ch, int k, int warm, int rounds) throws Exception {
    Schema.apply(ds);
    RabbitTransport rabbit = RabbitTransport.builder().uri(amqp).build();
    try (Once once = Once.builder().dataSource(ds).transport(rabbit).destinations("rb-orders").build()) {
      String ex = rabbit.exchangeName("rb-orders");
      ch.exchangeDeclare(ex, "topic", true);
      ch.queueDeclare("rb.orders.once", true, false, false, Map.of("x-queue-type", "quorum"));
      ch.queueBind("rb.orders.once", ex, "#"); ch.queuePurge("rb.orders.once");
      Relay relay = once.newRelay();
      long id = 0, me = Thread.currentThread().getId();
      for (int r = 0; r < warm + rounds; r++) {
        final long base = id; id += k;
        once.useTransaction(tx -> { for (int i = 0; i < k; i++) tx.publish(Event.of(EventId.of("rb-order", base + i), "rb-orders", Long.toString(base + i), "Ordered", "{\"orderId\":" + (base + i) + "}")); });
        long a0 = T.getThreadAllocatedBytes(me), t0 = T.getCurrentThreadCpuTime();
        int sent = 0; while (sent < k) sent += relay.runOnce();
        measure(r, warm, k, t0, a0);
        if (r % 1000 == 999) ch.queuePurge("rb.orders.once");
      }
      ch.queuePurge("rb.orders.once");
    } finally { rabbit.close(); }
  }

  static void hand(HikariDataSource ds, Channel ch, boolean borrow, int k, int warm, int rounds) throws Exception {
    ch.confirmSelect();
    ch.exchangeDeclare("rb.orders", "topic", true);
    ch.queueDeclare("rb.orders.c", true, false, false, Map.of("x-queue-type", "quorum"));
    ch.queueBind("rb.orders.c", "rb.orders", "#"); ch.queuePurge("rb.orders.c");
    String pickSql = "SELECT id, event_id, key, payload FROM hw_outbox WHERE sent_at IS NULL ORDER BY id LIMIT 200 FOR UPDATE SKIP LOCKED";
    String markSql = "UPDATE hw_outbox SET sent_at = now() WHERE id = ANY (?)";
    long id = 0, me = Thread.currentThread().getId();
    try (java.sql.Connection held = ds.getConnection(); java.sql.Connection w = ds.getConnection();
        PreparedStatement ins = w.prepareStatement("INSERT INTO hw_outbox (event_id, key, payload) VALUES (?, ?, ?)")) {
      held.setAutoCommit(false);
      PreparedStatement hpick = held.prepareStatement(pickSql), hmark = held.prepareStatement(markSql);
      for (int r = 0; r < warm + rounds; r++) {
        for (int i = 0; i < k; i++) { id++; ins.setString(1, "rb-order:" + id); ins.setString(2, Long.toString(id)); ins.setString(3, "{\"orderId\":" + id + "}"); ins.addBatch(); }
        ins.executeBatch();
        long a0 = T.getThreadAllocatedBytes(me), t0 = T.getCurrentThreadCpuTime();
        java.sql.Connection c = borrow ? ds.getConnection() : held;
        if (borrow) c.setAutoCommit(false);
        PreparedStatement pick = borrow ? c.prepareStatement(pickSql) : hpick, mark = borrow ? c.prepareStatement(markSql) : hmark;
        ResultSet rs = pick.executeQuery(); List<Long> ids = new ArrayList<>();
        while (rs.next()) {
          ids.add(rs.getLong(1));
          AMQP.BasicProperties p = new AMQP.BasicProperties.Builder().messageId(rs.getString(2)).deliveryMode(2).build();
          ch.basicPublish("rb.orders", rs.getString(3), p, rs.getString(4).getBytes(StandardCharsets.UTF_8));
        }
        ch.waitForConfirmsOrDie(10_000);
        mark.setArray(1, c.createArrayOf("bigint", ids.toArray())); mark.executeUpdate(); c.commit();
        if (borrow) { pick.close(); mark.close(); c.close(); }
        measure(r, warm, k, t0, a0);
        if (r % 1000 == 999) ch.queuePurge("rb.orders.c");
      }
    }
    ch.queuePurge("rb.orders.c");
  }
}
