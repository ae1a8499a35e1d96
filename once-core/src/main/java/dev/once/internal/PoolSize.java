package dev.once.internal;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The largest number of connections a pool lends, read from the pool itself without depending on
 * it: a public no-argument getter of a known name (HikariCP's {@code getMaximumPoolSize}, DBCP's
 * {@code getMaxTotal}, Tomcat's {@code getMaxActive}, c3p0's and Agroal's {@code getMaxPoolSize}),
 * found on the data source or on what it wraps. Empty when none is found: the size is then
 * unknowable and Once only says what it needs.
 *
 * @param size the pool's largest number of connections
 * @param name the pool's name, or its class's when it has none
 * @param property the pool's setting that sets {@code size}, e.g. {@code maximumPoolSize}
 */
public record PoolSize(int size, String name, String property) {
  private static final List<String[]> GETTERS =
      List.of(
          new String[] {"getMaximumPoolSize", "maximumPoolSize"},
          new String[] {"getMaxTotal", "maxTotal"},
          new String[] {"getMaxActive", "maxActive"},
          new String[] {"getMaxPoolSize", "maxPoolSize"});

  /** The pools whose class {@link DataSource#unwrap} is asked for, under any wrapper. */
  private static final List<String> POOLS =
      List.of(
          "com.zaxxer.hikari.HikariDataSource",
          "org.apache.commons.dbcp2.BasicDataSource",
          "org.apache.tomcat.jdbc.pool.DataSource",
          "com.mchange.v2.c3p0.ComboPooledDataSource");

  public static Optional<PoolSize> of(DataSource dataSource) {
    DataSource ds = dataSource;
    for (int depth = 0; ds != null && depth < 8; depth++) {
      DataSource at = ds;
      Optional<PoolSize> found = read(at).or(() -> unwrapped(at));
      if (found.isPresent()) {
        return found;
      }
      ds = wrapped(ds);
    }
    return Optional.empty();
  }

  /** A known pool that {@code ds} wraps, found with {@link DataSource#unwrap}. */
  private static Optional<PoolSize> unwrapped(DataSource ds) {
    for (String pool : POOLS) {
      try {
        Class<?> type = Class.forName(pool, false, ds.getClass().getClassLoader());
        if (ds.isWrapperFor(type)) {
          return read((DataSource) ds.unwrap(type));
        }
      } catch (ClassNotFoundException | java.sql.SQLException | RuntimeException | LinkageError e) {
        // that pool is not on the class path, or not under this data source
      }
    }
    return Optional.empty();
  }

  private static Optional<PoolSize> read(DataSource ds) {
    for (String[] getter : GETTERS) {
      try {
        Method m = ds.getClass().getMethod(getter[0]);
        if (m.getReturnType() == int.class) {
          int size = (int) m.invoke(ds);
          return size > 0 ? Optional.of(new PoolSize(size, name(ds), getter[1])) : Optional.empty();
        }
      } catch (ReflectiveOperationException | RuntimeException e) {
        // not this pool's getter (or not readable): try the next
      }
    }
    return Optional.empty();
  }

  /** What {@code ds} forwards to, by a getter such as Spring's {@code getTargetDataSource}. */
  private static DataSource wrapped(DataSource ds) {
    for (String getter : List.of("getTargetDataSource", "getDelegate", "getDataSource")) {
      try {
        Object inner = ds.getClass().getMethod(getter).invoke(ds);
        if (inner instanceof DataSource d && d != ds) {
          return d;
        }
      } catch (ReflectiveOperationException | RuntimeException e) {
        // not this wrapper's getter: try the next
      }
    }
    return null;
  }

  private static String name(DataSource ds) {
    try {
      Object name = ds.getClass().getMethod("getPoolName").invoke(ds);
      if (name instanceof String s && !s.isBlank()) {
        return s;
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      // a pool without a name
    }
    return ds.getClass().getSimpleName();
  }
}
