import com.zaxxer.hikari.HikariDataSource;
import dev.once.*;
import dev.once.rabbitmq.RabbitTransport;
import java.sql.*;

// Bytes Once allocates per event on the calling thread: relay.runOnce() and consumer.runOnce() of
// batches of k events, after a warm-up; a count of the code path, not of the machine's load (see
// docs/PERFORMANCE.md, "Fewer allocations per order, relay and consumer").
//   java -cp 'once-app/target/lib/*' bench/handwritten-probe/AllocPerBatch.java K WARM ROUNDS [SCHEMA [AMQP_URI]]
// drops and creates SCHEMA (default h_alloc) and purges its queue ab-orders.ab-c in the vhost of AMQP_URI.
public class AllocPerBatch {
  static final com.sun.management.ThreadMXBean T = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
  public static void main(String[] a) throws Exception {
    String schema = a.length > 3 ? a[3] : "h_alloc";
    String amqp = a.length > 4 ? a[4] : "amqp://guest:guest@127.0.0.1:5672/%2F";
    if (!schema.matches("[a-z_][a-z0-9_]*")) throw new IllegalArgumentException(schema);
    int k = Integer.parseInt(a[0]), warm = Integer.parseInt(a[1]), rounds = Integer.parseInt(a[2]);
    try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test?user=postgres"); Statement st = c.createStatement()) {
      st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE"); st.execute("CREATE SCHEMA " + schema);
      st.execute("CREATE TABLE " + schema + ".ab_effects (event_id text PRIMARY KEY)");
    }
    ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(ch.qos.logback.classic.Level.WARN);
    HikariDataSource ds = new HikariDataSource();
    ds.setJdbcUrl("jdbc:postgresql://127.0.0.1:5432/test?user=postgres&currentSchema=" + schema); ds.setMaximumPoolSize(4);
    dev.once.Schema.apply(ds);
    RabbitTransport rabbit = RabbitTransport.builder().uri(amqp).build();
    try (Once once = Once.builder().dataSource(ds).transport(rabbit).destinations("ab-orders").build()) {
      Consumer consumer = once.consumer("ab-c").subscribe("ab-orders", (tx, e) -> tx.update("INSERT INTO ab_effects (event_id) VALUES (?)", e.id().value())).batchSize(k).build();
      Relay relay = once.newRelay();
      com.rabbitmq.client.ConnectionFactory f = new com.rabbitmq.client.ConnectionFactory(); f.setUri(amqp);
      try (com.rabbitmq.client.Connection admin = f.newConnection(); com.rabbitmq.client.Channel ch = admin.createChannel()) {
        ch.queuePurge("ab-orders.ab-c"); // what an interrupted run left
      }
      long id = 0, relayB = 0, consB = 0, events = 0;
      for (int r = 0; r < warm + rounds; r++) {
        final long base = id; id += k;
        once.useTransaction(tx -> { for (int i = 0; i < k; i++) tx.publish(Event.of(EventId.of("ab", base + i), "ab-orders", "k" + ((base + i) % 64), "T", "{\"order\":" + (base + i) + "}")); });
        long me = Thread.currentThread().getId();
        long a0 = T.getThreadAllocatedBytes(me);
        int sent = 0; while (sent < k) sent += relay.runOnce();
        long a1 = T.getThreadAllocatedBytes(me);
        int done = 0; while (done < k) done += consumer.runOnce();
        long a2 = T.getThreadAllocatedBytes(me);
        if (r >= warm) { relayB += a1 - a0; consB += a2 - a1; events += k; }
      }
      try (Connection c = ds.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT count(*), count(DISTINCT event_id) FROM ab_effects")) {
        rs.next(); System.out.printf("k=%d rounds=%d relay_B_per_event=%.0f consumer_B_per_event=%.0f effects=%d distinct=%d%n", k, rounds, relayB / (double) events, consB / (double) events, rs.getLong(1), rs.getLong(2));
      }
    } finally { rabbit.close(); ds.close(); }
  }
}
