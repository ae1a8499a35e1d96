// What PostgreSQL spends on one producer transaction's outbox row, one variant of the row at a time
// (issue #42 item 3): the harness's raw row against Once's, and Once's with one thing changed. Per
// transaction (an INSERT into a table of its own and a COMMIT, one connection holding its prepared
// statement, synchronous_commit off so that no fsync wait stretches the run): the backend's CPU,
// read from /proc/PID/schedstat (run it on the database's machine), the WAL the whole server wrote
// meanwhile (others' too, on a shared server) and the WAL of one more INSERT (EXPLAIN ANALYZE, WAL).
// Variants run interleaved, round after round, each in a fresh table of its own.
//   java -cp 'once-app/target/lib/*' bench/handwritten-probe/OutboxRowProbe.java SCHEMA N ROUNDS [VARIANT,...]
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.*;
import java.util.*;

public class OutboxRowProbe {
  record Variant(String name, String ddl, String insert, Binder binder) {}

  interface Binder {
    void bind(PreparedStatement ps, long i) throws SQLException;
  }

  static final String ONCE_TABLE =
      """
      CREATE TABLE t (
          id              bigserial   PRIMARY KEY,
          event_id        text        NOT NULL,
          destination     text        NOT NULL,
          event_key       text,
          event_type      text        NOT NULL,
          payload         bytea       NOT NULL,
          headers         text[]      NOT NULL DEFAULT '{}',
          key_partition   int         NOT NULL,
          created_at      timestamptz NOT NULL DEFAULT now(),
          sent_at         timestamptz,
          attempts        int         NOT NULL DEFAULT 0,
          next_attempt_at timestamptz,
          last_error      text,
          trace           bytea,
          CONSTRAINT t_event_id_key UNIQUE (event_id));
      CREATE INDEX t_pending ON t (id) WHERE sent_at IS NULL;
      """;
  static final String ONCE_INDEXES =
      """
      CREATE INDEX t_sent_at ON t (sent_at) WHERE sent_at IS NOT NULL;
      CREATE INDEX t_waiting ON t (destination, event_key, id) WHERE sent_at IS NULL AND next_attempt_at IS NOT NULL;
      """;
  static final String ONCE_INSERT =
      "INSERT INTO t (event_id, destination, event_key, event_type, payload, headers, trace, key_partition) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
  static final String CONFLICT = " ON CONFLICT (event_id) DO NOTHING";
  static final String RAW_TABLE =
      """
      CREATE TABLE t (id bigserial PRIMARY KEY, event_id text NOT NULL UNIQUE, key text, payload text NOT NULL, sent_at timestamptz);
      CREATE INDEX t_pending ON t (id) WHERE sent_at IS NULL;
      """;

  static void once(PreparedStatement ps, long i) throws SQLException {
    ps.setString(1, "hw-order:" + i);
    ps.setString(2, "hw-orders");
    ps.setString(3, Long.toString(i));
    ps.setString(4, "Ordered");
    ps.setBytes(5, ("{\"orderId\":" + i + "}").getBytes());
    ps.setObject(6, new String[0]);
    ps.setBytes(7, null);
    ps.setInt(8, (int) (i % 16));
  }

  static void raw(PreparedStatement ps, long i) throws SQLException {
    ps.setString(1, "hw-order:" + i);
    ps.setString(2, Long.toString(i));
    ps.setString(3, "{\"orderId\":" + i + "}");
  }

  static final List<Variant> VARIANTS =
      List.of(
          new Variant("raw", RAW_TABLE, "INSERT INTO t (event_id, key, payload) VALUES (?, ?, ?)", OutboxRowProbe::raw),
          new Variant("raw+conflict", RAW_TABLE, "INSERT INTO t (event_id, key, payload) VALUES (?, ?, ?)" + CONFLICT, OutboxRowProbe::raw),
          new Variant("once", ONCE_TABLE + ONCE_INDEXES, ONCE_INSERT + CONFLICT, OutboxRowProbe::once),
          new Variant("once-noconflict", ONCE_TABLE + ONCE_INDEXES, ONCE_INSERT, OutboxRowProbe::once),
          new Variant("once-2idx", ONCE_TABLE, ONCE_INSERT + CONFLICT, OutboxRowProbe::once),
          new Variant(
              "once-defaulthdr",
              ONCE_TABLE + ONCE_INDEXES,
              "INSERT INTO t (event_id, destination, event_key, event_type, payload, key_partition) VALUES (?, ?, ?, ?, ?, ?)" + CONFLICT,
              (ps, i) -> {
                ps.setString(1, "hw-order:" + i);
                ps.setString(2, "hw-orders");
                ps.setString(3, Long.toString(i));
                ps.setString(4, "Ordered");
                ps.setBytes(5, ("{\"orderId\":" + i + "}").getBytes());
                ps.setInt(6, (int) (i % 16));
              }),
          new Variant(
              "once-textpayload",
              (ONCE_TABLE + ONCE_INDEXES).replace("payload         bytea", "payload         text"),
              ONCE_INSERT + CONFLICT,
              (ps, i) -> {
                once(ps, i);
                ps.setString(5, "{\"orderId\":" + i + "}");
              }));

  public static void main(String[] a) throws Exception {
    String schema = a[0];
    int n = Integer.parseInt(a[1]), rounds = Integer.parseInt(a[2]);
    Set<String> only = a.length > 3 ? Set.of(a[3].split(",")) : null;
    String url = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&currentSchema=" + schema;
    try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
      st.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
      st.execute("SET synchronous_commit = off");
      ResultSet rs = st.executeQuery("SELECT pg_backend_pid()");
      rs.next();
      Path stat = Path.of("/proc/" + rs.getInt(1) + "/schedstat");
      Map<String, List<double[]>> results = new LinkedHashMap<>();
      for (int r = 0; r < rounds; r++) {
        List<Variant> order = new ArrayList<>(VARIANTS);
        if (r % 2 == 1) Collections.reverse(order);
        for (Variant v : order) {
          if (only != null && !only.contains(v.name())) continue;
          st.execute("DROP TABLE IF EXISTS t");
          for (String ddl : v.ddl().split(";")) if (!ddl.isBlank()) st.execute(ddl);
          c.setAutoCommit(false);
          try (PreparedStatement ps = c.prepareStatement(v.insert())) {
            for (long i = 0; i < n / 5; i++) { v.binder().bind(ps, -1 - i); ps.executeUpdate(); c.commit(); } // warm-up
            long wal0 = wal(st), cpu0 = cpu(stat), t0 = System.nanoTime();
            c.commit();
            for (long i = 1; i <= n; i++) {
              v.binder().bind(ps, i);
              ps.executeUpdate();
              c.commit();
            }
            long cpu1 = cpu(stat), wal1 = wal(st);
            String walLine = "";
            try (PreparedStatement ex = c.prepareStatement("EXPLAIN (ANALYZE, WAL, COSTS OFF, TIMING OFF, SUMMARY OFF) " + v.insert())) {
              v.binder().bind(ex, -1_000_000 - r);
              try (ResultSet er = ex.executeQuery()) {
                while (er.next()) if (er.getString(1).contains("WAL:")) walLine = er.getString(1).strip();
              }
            }
            c.commit();
            c.setAutoCommit(true);
            double[] x = {(cpu1 - cpu0) / 1e3 / n, (double) (wal1 - wal0) / n, (System.nanoTime() - t0) / 1e3 / n};
            results.computeIfAbsent(v.name(), k -> new ArrayList<>()).add(x);
            System.out.printf("ROW round=%d variant=%-16s backend_cpu_us=%.1f wal_B=%.0f wall_us=%.1f explain=%s%n", r, v.name(), x[0], x[1], x[2], walLine);
          }
        }
      }
      for (var e : results.entrySet()) {
        double[] cpu = e.getValue().stream().mapToDouble(x -> x[0]).sorted().toArray();
        double[] wal = e.getValue().stream().mapToDouble(x -> x[1]).sorted().toArray();
        System.out.printf("MEDIAN variant=%-16s backend_cpu_us=%.1f (%.1f-%.1f) wal_B=%.0f%n", e.getKey(), cpu[cpu.length / 2], cpu[0], cpu[cpu.length - 1], wal[wal.length / 2]);
      }
      st.execute("DROP TABLE IF EXISTS t");
    }
  }

  static long cpu(Path stat) throws Exception {
    return Long.parseLong(Files.readString(stat).split(" ")[0]);
  }

  static long wal(Statement st) throws SQLException {
    try (ResultSet rs = st.executeQuery("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
