package dev.once.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.once.Schema;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A fresh schema {@code once_jmh} on the PostgreSQL server named by the system property {@code
 * once.bench.db} (default the local server's {@code test} database), or a fresh database {@code
 * once_jmh} when it names a MariaDB/MySQL server ({@code
 * jdbc:mariadb://127.0.0.1:3306/test?user=root}), with the Once tables and an effect table.
 */
final class BenchDatabase implements AutoCloseable {
  static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

  private final HikariDataSource dataSource;

  BenchDatabase() throws SQLException {
    String url = System.getProperty("once.bench.db", DEFAULT_URL);
    boolean mariadb = url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:");
    try (HikariDataSource admin = pool(url, 1)) {
      if (mariadb) {
        run(admin, "DROP DATABASE IF EXISTS once_jmh");
        run(admin, "CREATE DATABASE once_jmh CHARACTER SET utf8mb4");
      } else {
        run(admin, "DROP SCHEMA IF EXISTS once_jmh CASCADE; CREATE SCHEMA once_jmh");
      }
    }
    dataSource =
        pool(
            mariadb
                ? url.replaceFirst("(//[^/?]+)/[^?]*", "$1/once_jmh")
                : url + (url.contains("?") ? "&" : "?") + "currentSchema=once_jmh",
            8);
    Schema.apply(dataSource);
    run(
        dataSource,
        mariadb
            ? "CREATE TABLE jmh_effects (id bigint AUTO_INCREMENT PRIMARY KEY,"
                + " event_id varchar(200) NOT NULL) ENGINE = InnoDB"
            : "CREATE TABLE jmh_effects (id bigserial PRIMARY KEY, event_id text NOT NULL)");
  }

  private static HikariDataSource pool(String url, int size) {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(url);
    cfg.setMaximumPoolSize(size);
    cfg.setPoolName("once-jmh");
    return new HikariDataSource(cfg);
  }

  static void run(javax.sql.DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  HikariDataSource dataSource() {
    return dataSource;
  }

  @Override
  public void close() {
    dataSource.close();
  }
}
