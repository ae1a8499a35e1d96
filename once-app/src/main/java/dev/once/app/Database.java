package dev.once.app;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The database a command runs on: the PostgreSQL server at {@code --db}, or an embedded PostgreSQL
 * (real PostgreSQL 18 binaries from a Maven artifact) with its data in {@code .once/pg} in the
 * working directory, fsync and synchronous_commit on.
 */
public final class Database implements AutoCloseable {
  public static final Path EMBEDDED_DATA = Path.of(".once", "pg");

  /**
   * The environment variable read when {@code --db} is absent: a JDBC URL with a password given
   * there stays out of the process list ({@code ps}) and the shell's history.
   */
  public static final String ENV = "ONCE_DB";

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
   * Opens the PostgreSQL at {@code flag} (or {@code $ONCE_DB}), or the embedded database when both
   * are absent: for the commands whose own SQL (the bench) is PostgreSQL's.
   */
  public static Database open(String flag, int poolSize) {
    String url = url(flag);
    if (url != null && !url.startsWith("jdbc:postgresql:")) {
      throw new UserError(
          "--db must be a PostgreSQL JDBC URL such as"
              + " jdbc:postgresql://127.0.0.1:5432/test?user=postgres, was '"
              + redact(url)
              + "'"
              + (isMariaDb(url)
                  ? " (bench runs on PostgreSQL only; the other commands take a MariaDB URL)"
                  : ""));
    }
    return url == null ? embedded(poolSize) : server(url, poolSize);
  }

  /**
   * Opens {@code flag} (or {@code $ONCE_DB}) on PostgreSQL or MariaDB/MySQL, or the embedded
   * database when both are absent: for every command but the bench.
   */
  public static Database openAny(String flag, int poolSize) {
    String url = url(flag);
    if (url != null && !url.startsWith("jdbc:postgresql:") && !isMariaDb(url)) {
      throw new UserError(
          "--db must be a PostgreSQL or MariaDB/MySQL JDBC URL such as"
              + " jdbc:postgresql://127.0.0.1:5432/test?user=postgres or"
              + " jdbc:mariadb://127.0.0.1:3306/test?user=root, was '"
              + redact(url)
              + "'");
    }
    return url == null ? embedded(poolSize) : server(url, poolSize);
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

  private static boolean isMariaDb(String url) {
    return url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:");
  }

  private static Database server(String url, int poolSize) {
    return new Database(null, pool(url, poolSize), redact(url), url);
  }

  private static Database embedded(int poolSize) {
    try {
      EmbeddedServer.Started pg =
          EmbeddedServer.start(
              EMBEDDED_DATA,
              Map.of("fsync", "on", "synchronous_commit", "on", "max_connections", "200"));
      return new Database(
          pg.postgres(),
          pool(pg.jdbcUrl(), poolSize),
          "embedded PostgreSQL (" + EMBEDDED_DATA + ")",
          pg.jdbcUrl());
    } catch (IOException e) {
      throw new UserError(
          "embedded PostgreSQL did not start in " + EMBEDDED_DATA + ": " + e.getMessage(), e);
    }
  }

  private static HikariDataSource pool(String url, int poolSize) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(url);
    cfg.setMaximumPoolSize(poolSize);
    cfg.setConnectionTimeout(10_000);
    cfg.setPoolName("once");
    try {
      return new HikariDataSource(cfg);
    } catch (HikariPool.PoolInitializationException e) {
      throw cannotConnect(url, e.getCause() == null ? e : e.getCause());
    } catch (RuntimeException e) { // "Failed to get driver instance": no driver takes this URL
      throw new UserError(
          "no JDBC driver accepts --db "
              + redact(url)
              + ": check its syntax (in a URL, a '%' starts an escape such as %25, and '/', '@',"
              + " '?', '&', '#' or a space in a password must be escaped)",
          e);
    }
  }

  private static UserError cannotConnect(String url, Throwable cause) {
    return new UserError(
        Secrets.scrub("cannot connect to " + redact(url) + ": " + ErrorHandler.message(cause)),
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
