package dev.once.app;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.sql.DataSource;

/**
 * The database a command runs on: the PostgreSQL or MariaDB/MySQL server at {@code --db}, or an
 * embedded PostgreSQL (real PostgreSQL 18 binaries from a Maven artifact) with its data in {@code
 * .once/pg} in the working directory, fsync and synchronous_commit on.
 */
public final class Database implements AutoCloseable {
  public static final Path EMBEDDED_DATA = Path.of(".once", "pg");

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

  /** Opens {@code url} on PostgreSQL or MariaDB/MySQL, or the embedded database when it is null. */
  public static Database openAny(String url, int poolSize) {
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

  private static boolean isMariaDb(String url) {
    return url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:");
  }

  private static Database server(String url, int poolSize) {
    return new Database(null, pool(url, poolSize), redact(url), url);
  }

  private static Database embedded(int poolSize) {
    try {
      Files.createDirectories(EMBEDDED_DATA);
      EmbeddedPostgres pg =
          EmbeddedPostgres.builder()
              .setDataDirectory(EMBEDDED_DATA)
              .setCleanDataDirectory(false)
              .setServerConfig("fsync", "on")
              .setServerConfig("synchronous_commit", "on")
              .setServerConfig("max_connections", "200")
              .start();
      String url = pg.getJdbcUrl("postgres", "postgres");
      return new Database(
          pg, pool(url, poolSize), "embedded PostgreSQL (" + EMBEDDED_DATA + ")", url);
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
      throw new UserError(
          "cannot connect to "
              + redact(url)
              + ": "
              + ErrorHandler.message(e.getCause() == null ? e : e.getCause()),
          e);
    }
  }

  /** The URL without a password, for messages and reports. */
  static String redact(String url) {
    return url.replaceAll("(?i)(password=)[^&]*", "$1***")
        .replaceAll("//([^:/@]+):[^@/]*@", "//$1:***@");
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
