package dev.once.internal.postgres;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;
import javax.sql.DataSource;

/**
 * How the {@code LISTEN} opens a connection of its own, outside the pool it serves: the pool's JDBC
 * URL, user, password and driver properties, read through the pool's own getters (HikariCP's {@code
 * getJdbcUrl}, pgjdbc's {@code getUrl}, Spring's {@code getUrl}; a pool around a data source is
 * read through that data source), with pgjdbc's driver from the pool's own class loader. A
 * connection held for good then takes nothing from the user's pool: Once needs no more of it than a
 * hand-written pipeline with the same threads.
 *
 * <p>The new session gets the pool's {@code search_path}, read from a connection of the pool, so
 * that it listens, and says it listens, for the same schema.
 */
final class OwnConnection {
  private final Object pool;
  private final String url;
  private final Properties properties;

  private OwnConnection(Object pool, String url, Properties properties) {
    this.pool = pool;
    this.url = url;
    this.properties = properties;
  }

  /** Data sources a pool can be wrapped in, found with {@link DataSource#unwrap}. */
  private static final List<String> POOLS =
      List.of("com.zaxxer.hikari.HikariDataSource", "org.postgresql.ds.common.BaseDataSource");

  /**
   * How to open a connection beside {@code pool}, or null when its settings can't be read: on it,
   * on what it forwards to ({@code getTargetDataSource}, {@code getDelegate}, {@code
   * getDataSource}) or on a known pool it unwraps to.
   */
  static OwnConnection of(DataSource pool) {
    Object source = pool;
    for (int depth = 0; source != null && depth < 8; depth++) {
      OwnConnection found = read(source);
      if (found == null && source instanceof DataSource ds) {
        found = unwrapped(ds);
      }
      if (found != null) {
        return found;
      }
      source = first(source, "getTargetDataSource", "getDelegate", "getDataSource");
    }
    return null;
  }

  private static OwnConnection read(Object source) {
    if (!(first(source, "getJdbcUrl", "getUrl", "getURL") instanceof String url
        && url.startsWith("jdbc:postgresql:"))) {
      return null;
    }
    Properties p = new Properties();
    if (get(source, "getDataSourceProperties") instanceof Properties given) {
      given.forEach((k, v) -> p.put(String.valueOf(k), String.valueOf(v)));
    }
    if (first(source, "getUsername", "getUser") instanceof String user) {
      p.setProperty("user", user);
    }
    if (get(source, "getPassword") instanceof String password) {
      p.setProperty("password", password);
    }
    return new OwnConnection(source, url, p);
  }

  private static OwnConnection unwrapped(DataSource ds) {
    for (String pool : POOLS) {
      try {
        Class<?> type = Class.forName(pool, false, ds.getClass().getClassLoader());
        if (ds.isWrapperFor(type)) {
          return read(ds.unwrap(type));
        }
      } catch (ClassNotFoundException | SQLException | RuntimeException | LinkageError e) {
        // that pool is not on the class path, or not under this data source
      }
    }
    return null;
  }

  /**
   * A new session on the pool's database with {@code borrowed}'s {@code search_path}, outside the
   * pool.
   *
   * @throws SQLException when the driver refuses it (the message never holds the password)
   */
  Connection open(Connection borrowed) throws SQLException {
    String searchPath;
    try (PreparedStatement ps = borrowed.prepareStatement("SELECT current_setting('search_path')");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      searchPath = rs.getString(1);
    }
    Connection c = driver(borrowed).connect(url, properties);
    if (c == null) {
      throw new SQLException("pgjdbc does not take the pool's URL");
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT set_config('search_path', ?, false)")) {
      ps.setString(1, searchPath);
      ps.execute();
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    return c;
  }

  /**
   * Whether the pool it was read from says it is closed (HikariCP's {@code isClosed}): a closed
   * pool's process is gone as far as its users know, and its {@code LISTEN} ends with it, as a
   * connection of the pool's would.
   */
  boolean poolClosed() {
    return Boolean.TRUE.equals(get(pool, "isClosed"));
  }

  private static Driver driver(Connection borrowed) throws SQLException {
    try {
      Class<?> pg =
          borrowed
              .unwrap(Class.forName("org.postgresql.PGConnection", false, loader(borrowed)))
              .getClass();
      return (Driver)
          Class.forName("org.postgresql.Driver", true, pg.getClassLoader())
              .getConstructor()
              .newInstance();
    } catch (ReflectiveOperationException e) {
      throw new SQLException("pgjdbc's driver is not reachable from the pool's connection", e);
    }
  }

  private static ClassLoader loader(Connection c) {
    ClassLoader l = c.getClass().getClassLoader();
    return l != null ? l : ClassLoader.getSystemClassLoader();
  }

  private static Object first(Object source, String... getters) {
    for (String g : getters) {
      Object v = get(source, g);
      if (v != null) {
        return v;
      }
    }
    return null;
  }

  /** {@code source.getter()} if it has that public getter and it answers, else null. */
  private static Object get(Object source, String getter) {
    try {
      Method m = source.getClass().getMethod(getter);
      return m.getParameterCount() == 0 ? m.invoke(source) : null;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }
}
