package dev.once.app.common;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The database a command runs on: the PostgreSQL or MariaDB/MySQL server at {@code --db}, or an
 * embedded PostgreSQL (real PostgreSQL 18 binaries from a Maven artifact) with its data in {@code
 * .once/pg} in the working directory, fsync and synchronous_commit on.
 *
 * <p>Every command but the bench runs in a namespace, {@link #openScenario}: a PostgreSQL schema,
 * or a MariaDB database, named by {@code --schema}, else by the URL as JDBC has it ({@code
 * currentSchema} on PostgreSQL, the database on MariaDB), else {@value #DEMO_SCHEMA}, where the
 * demo runs ({@link JdbcUrls#namespace}); {@code --schema} and a URL that name two different ones
 * are an error. So {@code once demo --db URL} and {@code once status --db URL} look at the same
 * tables, and a URL a user pastes from the application means what it means there ({@link
 * DatabaseOptions}).
 */
public final class Database implements AutoCloseable {
  public static final Path EMBEDDED_DATA = Path.of(".once", "pg");

  /**
   * The environment variable read when {@code --db} is absent: a JDBC URL with a password given
   * there stays out of the process list ({@code ps}) and the shell's history.
   */
  public static final String ENV = "ONCE_DB";

  /** The namespace of the demo scenario's commands unless {@code --schema} names another. */
  public static final String DEMO_SCHEMA = "once_demo";

  private final EmbeddedPostgres embedded;
  private final HikariDataSource dataSource;
  private final String description;
  private final String jdbcUrl;

  private Database(
      EmbeddedPostgres embedded, HikariDataSource dataSource, String description, String jdbcUrl) {
    this.embedded = embedded;
    this.dataSource = dataSource;
    this.description = description;
    this.jdbcUrl = jdbcUrl;
  }

  /**
   * Opens {@code flag} (or {@code $ONCE_DB}) on PostgreSQL or MariaDB/MySQL in the schema the URL
   * names, or the embedded database in its default schema when both are absent: for the bench,
   * whose tables and consumers are its own ({@code bench_*}, {@code bench*}).
   */
  public static Database open(String flag, int poolSize) {
    String url = url(flag);
    JdbcUrls.check(url);
    return url == null ? embedded(poolSize, null) : server(url, poolSize);
  }

  /**
   * Opens the namespace {@link JdbcUrls#namespace} names for {@code --schema} {@code schema} (null:
   * not given) and the URL {@code url} (or {@code $ONCE_DB}): a schema of that PostgreSQL or of the
   * embedded one, or a database of that MariaDB, created if needed.
   */
  public static Database openScenario(String url, String schema, int poolSize) {
    return openScenario(url, schema, poolSize, true);
  }

  /**
   * {@link #openScenario(String, String, int)}; with {@code create} false (a command that only
   * reads), a namespace that is not there is an error saying so, and nothing is created.
   */
  public static Database openScenario(String flag, String schema, int poolSize, boolean create) {
    String url = url(flag);
    String name = JdbcUrls.namespace(url, schema);
    if (url == null) {
      return embedded(poolSize, name, create);
    }
    createNamespace(url, name, redact(url), create);
    return server(JdbcUrls.inNamespace(url, name), poolSize);
  }

  /** Creates the schema (PostgreSQL) or database (MariaDB) if it is not there. */
  private static void createNamespace(
      String url, String schema, String description, boolean create) {
    boolean mariadb = JdbcUrls.isMariaDb(url);
    try {
      DriverManager.getDriver(url); // a driver takes a URL only if it can parse it
    } catch (SQLException e) {
      throw noDriver(description, e);
    }
    Connection c;
    try {
      c = DriverManager.getConnection(url);
    } catch (SQLException e) {
      throw cannotConnect(description, e);
    }
    try (c;
        Statement s = c.createStatement()) {
      if (!exists(c, schema)) { // an existing one needs no CREATE privilege
        if (!create) {
          throw new UserError(
              (mariadb ? "database " : "schema ")
                  + schema
                  + " not found on "
                  + description
                  + ": name the one that holds the Once tables with --schema or in the URL"
                  + " (default "
                  + DEMO_SCHEMA
                  + ", where once demo runs), or create it with once schema apply --schema "
                  + schema
                  + " or once demo --schema "
                  + schema);
        }
        s.execute(
            mariadb
                ? "CREATE DATABASE IF NOT EXISTS " + schema + " CHARACTER SET utf8mb4"
                : "CREATE SCHEMA IF NOT EXISTS " + schema);
      }
    } catch (SQLException e) {
      throw new UserError(
          "cannot create "
              + (mariadb ? "database " : "schema ")
              + schema
              + " on "
              + description
              + " for the demo's tables: "
              + Secrets.scrub(UserError.messageOf(e))
              + " (create it, or name an existing one with --schema)",
          e);
    }
  }

  private static boolean exists(Connection c, String schema) throws SQLException {
    try (var ps =
        c.prepareStatement("SELECT 1 FROM information_schema.schemata WHERE schema_name = ?")) {
      ps.setString(1, schema);
      try (var rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** {@code --db} if given, else {@code $ONCE_DB} if set, else null (the embedded database). */
  public static String url(String flag) {
    if (flag != null) {
      return flag;
    }
    String env = System.getenv(ENV);
    return env == null || env.isBlank() ? null : env.strip();
  }

  /** {@link #url} for the commands that cannot run on an embedded database of their own. */
  public static String requireUrl(String flag) {
    String url = url(flag);
    if (url == null) {
      throw new UserError(
          "--db is required (or the environment variable "
              + ENV
              + "): the JDBC URL of the database every process shares");
    }
    return url;
  }

  private static Database server(String url, int poolSize) {
    return new Database(null, pool(url, poolSize), redact(url), url);
  }

  /** The embedded server; its pool in {@code schema} (created if needed), or as it is if null. */
  private static Database embedded(int poolSize, String schema) {
    return embedded(poolSize, schema, true);
  }

  private static Database embedded(int poolSize, String schema, boolean create) {
    try {
      EmbeddedServer.Started started =
          EmbeddedServer.start(
              EMBEDDED_DATA,
              Map.of("fsync", "on", "synchronous_commit", "on", "max_connections", "200"));
      EmbeddedPostgres pg = started.postgres();
      String url = started.jdbcUrl();
      String description = "embedded PostgreSQL (" + EMBEDDED_DATA + ")";
      if (schema != null) {
        try {
          createNamespace(url, schema, description, create);
        } catch (UserError e) {
          pg.close();
          throw e;
        }
        url = JdbcUrls.inNamespace(url, schema);
        description = "embedded PostgreSQL (" + EMBEDDED_DATA + "), schema " + schema;
      }
      return new Database(pg, pool(url, poolSize), description, url);
    } catch (IOException e) {
      throw new UserError(
          "embedded PostgreSQL did not start in " + EMBEDDED_DATA + ": " + e.getMessage(), e);
    }
  }

  /**
   * What the pools of this command add to a URL that does not set them: a socket timeout (the
   * longest wait for the next bytes of an answer), TCP keepalive, a connect timeout, and the
   * server's bounds on a lock wait and on an idle open transaction, which end the session of a
   * worker whose connection went half-open in the middle of a transaction (see docs/OPERATING.md,
   * "Half-open connections"). Values as {@code DatabaseTimeouts.DEFAULT}.
   */
  private static final List<Map.Entry<String, String>> POSTGRES_BOUNDS =
      List.of(
          Map.entry("socketTimeout", "30"), // seconds
          Map.entry("connectTimeout", "10"),
          Map.entry("tcpKeepAlive", "true"),
          Map.entry(
              "options",
              "-c%20lock_timeout%3D10s%20-c%20idle_in_transaction_session_timeout%3D30s"));

  private static final List<Map.Entry<String, String>> MARIADB_BOUNDS =
      List.of(
          Map.entry("socketTimeout", "30000"), // milliseconds
          Map.entry("connectTimeout", "10000"),
          Map.entry("tcpKeepAlive", "true"),
          Map.entry("sessionVariables", "innodb_lock_wait_timeout=10,idle_transaction_timeout=60"));

  /** {@code url} with each of the bounds above that it does not set already. */
  static String withBounds(String url) {
    int query = url.indexOf('?');
    String params = query < 0 ? "" : url.substring(query + 1);
    java.util.Set<String> given = new java.util.HashSet<>();
    for (String param : params.split("&")) {
      int eq = param.indexOf('=');
      given.add((eq < 0 ? param : param.substring(0, eq)).toLowerCase(Locale.ROOT));
    }
    StringBuilder out = new StringBuilder(url);
    char sep = query < 0 ? '?' : (url.endsWith("?") || url.endsWith("&") ? 0 : '&');
    List<Map.Entry<String, String>> bounds =
        !JdbcUrls.isMariaDb(url)
            ? POSTGRES_BOUNDS
            : url.startsWith("jdbc:mysql:")
                ? MARIADB_BOUNDS.subList(0, 3) // MySQL has no idle_transaction_timeout
                : MARIADB_BOUNDS;
    for (Map.Entry<String, String> bound : bounds) {
      if (!given.contains(bound.getKey().toLowerCase(Locale.ROOT))) {
        if (sep != 0) {
          out.append(sep);
        }
        out.append(bound.getKey()).append('=').append(bound.getValue());
        sep = '&';
      }
    }
    return out.toString();
  }

  private static HikariDataSource pool(String url, int poolSize) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(withBounds(url));
    cfg.setMaximumPoolSize(poolSize);
    cfg.setConnectionTimeout(10_000);
    cfg.setPoolName("once");
    try {
      return new HikariDataSource(cfg);
    } catch (HikariPool.PoolInitializationException e) {
      throw cannotConnect(redact(url), e.getCause() == null ? e : e.getCause());
    } catch (RuntimeException e) { // "Failed to get driver instance": no driver takes this URL
      throw noDriver(redact(url), e);
    }
  }

  private static UserError noDriver(String description, Throwable cause) {
    return new UserError(
        "no JDBC driver accepts --db "
            + description
            + ": check its syntax (in a URL, a '%' starts an escape such as %25, and '/', '@',"
            + " '?', '&', '#' or a space in a password must be escaped)",
        cause);
  }

  private static UserError cannotConnect(String description, Throwable cause) {
    return new UserError(
        Secrets.scrub("cannot connect to " + description + ": " + UserError.messageOf(cause)),
        cause);
  }

  /** The URL without a password, for messages and reports. */
  static String redact(String url) {
    Secrets.learn(url);
    return Secrets.scrub(url);
  }

  public DataSource dataSource() {
    return dataSource;
  }

  /**
   * The JDBC URL other processes connect with (for the embedded server: its local port, valid while
   * this process runs). May hold a password: never print it, print {@link #description()}.
   */
  public String jdbcUrl() {
    return jdbcUrl;
  }

  public String description() {
    return description;
  }

  @Override
  public void close() {
    dataSource.close();
    if (embedded != null) {
      try {
        embedded.close();
      } catch (IOException e) {
        // the server process goes away with us; the next start on the folder cleans up
      }
    }
  }
}
