// The JVM cost of one producer transaction, one thread at a time: thread CPU, bytes allocated and
// wall time per transaction, for raw JDBC holding one connection and its statements (held), raw JDBC
// borrowing a pooled connection per transaction (borrow; borrownet sets the network timeout too;
// restore puts it and auto-commit back before close; held-under-pool: restore, both statements held on
// the driver's connection under the pool) and Once (once: a business row + tx.publish).
// Its own schema hpp in the database test; run from the project root after a package build:
//   java -cp "once-app/target/lib/*" bench/handwritten-probe/ProducerProbe.java held,once 1500 3000 2
// (modes, warm-up and measured transactions per mode, rounds).
import com.zaxxer.hikari.HikariDataSource;
import dev.once.*;
import dev.once.rabbitmq.RabbitTransport;
import java.lang.management.ManagementFactory;
import java.sql.*;
import java.util.concurrent.Executors;

public class ProducerProbe {
  static final String DB = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&currentSchema=hpp";
  static long id = 1;
  static final java.util.Map<Connection, PreparedStatement[]> HELD = new java.util.IdentityHashMap<>();
  public static void main(String[] a) throws Exception {
    String[] modes = a[0].split(",");
    int warm = Integer.parseInt(a[1]), n = Integer.parseInt(a[2]), rounds = Integer.parseInt(a[3]);
    try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test?user=postgres"); Statement st = c.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS hpp CASCADE"); st.execute("CREATE SCHEMA hpp");
    }
    HikariDataSource ds = new HikariDataSource(); ds.setJdbcUrl(DB); ds.setMaximumPoolSize(4);
    try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
      st.execute("CREATE TABLE hw_orders (order_id bigint PRIMARY KEY, at timestamptz NOT NULL DEFAULT clock_timestamp())");
      st.execute("CREATE TABLE hw_outbox (id bigserial PRIMARY KEY, event_id text NOT NULL UNIQUE, key text, payload text NOT NULL, sent_at timestamptz)");
    }
    Schema.apply(ds);
    RabbitTransport rabbit = RabbitTransport.builder().uri("amqp://guest:guest@127.0.0.1:5672/").build();
    Once once = Once.builder().dataSource(ds).transport(rabbit).destinations("hpp-orders").build();
    com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long tid = Thread.currentThread().getId();
    Connection held = ds.getConnection(); held.setAutoCommit(false);
    PreparedStatement o = held.prepareStatement("INSERT INTO hw_orders (order_id) VALUES (?)");
    PreparedStatement x = held.prepareStatement("INSERT INTO hw_outbox (event_id, key, payload) VALUES (?, ?, ?)");
    for (int r = 0; r < rounds; r++) {
      for (String m : modes) {
        for (int phase = 0; phase < 2; phase++) {
          int k = phase == 0 ? warm : n;
          long cpu0 = mx.getCurrentThreadCpuTime(), al0 = mx.getThreadAllocatedBytes(tid), t0 = System.nanoTime();
          for (int i = 0; i < k; i++) {
            long oid = id++;
            switch (m) {
              case "held" -> { o.setLong(1, oid); o.executeUpdate(); x.setString(1, "hw-order:" + oid); x.setString(2, Long.toString(oid)); x.setString(3, "{\"orderId\":" + oid + "}"); x.executeUpdate(); held.commit(); }
              case "borrow", "borrownet", "restore" -> {
                try (Connection c = ds.getConnection()) {
                  if (!m.equals("borrow")) c.setNetworkTimeout(Runnable::run, 30000);
                  c.setAutoCommit(false);
                  try (PreparedStatement po = c.prepareStatement("INSERT INTO hw_orders (order_id) VALUES (?)")) { po.setLong(1, oid); po.executeUpdate(); }
                  try (PreparedStatement px = c.prepareStatement("INSERT INTO hw_outbox (event_id, key, payload) VALUES (?, ?, ?)")) { px.setString(1, "hw-order:" + oid); px.setString(2, Long.toString(oid)); px.setString(3, "{\"orderId\":" + oid + "}"); px.executeUpdate(); }
                  c.commit();
                  if (m.equals("restore")) { c.setAutoCommit(true); c.setNetworkTimeout(Runnable::run, 0); }
                }
              }
              case "held-under-pool" -> { // restore, with both statements held on the driver's connection
                try (Connection c = ds.getConnection()) {
                  c.setNetworkTimeout(Runnable::run, 30000);
                  c.setAutoCommit(false);
                  PreparedStatement[] ps = HELD.computeIfAbsent(c.unwrap(Connection.class), pc -> { try { return new PreparedStatement[] {pc.prepareStatement("INSERT INTO hw_orders (order_id) VALUES (?)"), pc.prepareStatement("INSERT INTO hw_outbox (event_id, key, payload) VALUES (?, ?, ?)")}; } catch (SQLException e) { throw new RuntimeException(e); } });
                  ps[0].setLong(1, oid); ps[0].executeUpdate();
                  ps[1].setString(1, "hw-order:" + oid); ps[1].setString(2, Long.toString(oid)); ps[1].setString(3, "{\"orderId\":" + oid + "}"); ps[1].executeUpdate();
                  c.commit();
                  c.setAutoCommit(true); c.setNetworkTimeout(Runnable::run, 0);
                }
              }
              case "once" -> once.inTransaction(tx -> {
                tx.update("INSERT INTO hw_orders (order_id) VALUES (?)", oid);
                return tx.publish(Event.of(EventId.of("hw-order", oid), "hpp-orders", Long.toString(oid), "Ordered", "{\"orderId\":" + oid + "}"));
              });
              default -> throw new IllegalArgumentException(m);
            }
          }
          if (phase == 1) {
            System.out.printf("PROBE round=%d mode=%-9s cpu_us=%.1f alloc_B=%d wall_us=%.1f%n", r, m,
                (mx.getCurrentThreadCpuTime() - cpu0) / 1e3 / k, (mx.getThreadAllocatedBytes(tid) - al0) / k, (System.nanoTime() - t0) / 1e3 / k);
          }
        }
      }
    }
    held.close(); once.close(); rabbit.close(); ds.close(); System.exit(0);
  }
}
