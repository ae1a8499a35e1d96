package dev.once.jdbc;

import dev.once.ConfigurationException;
import dev.once.OnceException;
import dev.once.SchemaMissingException;
import dev.once.StoreException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * The dialects on the class path, by name or chosen from a data source's metadata. Once ships
 * PostgreSQL and MariaDB/MySQL; another jar adds one with a {@link DialectProvider}.
 */
public final class Dialects {
  private Dialects() {}

  /** Found once, in the order of the class path. */
  private static final class Found {
    static final List<DialectProvider> PROVIDERS =
        ServiceLoader.load(DialectProvider.class, Dialects.class.getClassLoader()).stream()
            .map(ServiceLoader.Provider::get)
            .toList();
  }

  /** PostgreSQL 14 and later (server or embedded). */
  public static Dialect postgresql() {
    return named("postgresql");
  }

  /**
   * MariaDB 10.6 and later (tested on 10.11), and MySQL 8.0 and later: the same SQL. No
   * cross-process wake-ups; see docs/MARIADB.md.
   */
  public static Dialect mariadb() {
    return named("mariadb");
  }

  /**
   * The dialect called {@code name} ({@link DialectProvider#name()}).
   *
   * @throws ConfigurationException naming the dialects there are if none is called so
   */
  public static Dialect named(String name) {
    for (DialectProvider p : Found.PROVIDERS) {
      if (p.name().equals(name)) {
        return p.dialect();
      }
    }
    throw new ConfigurationException(
        "dialect", "is '" + name + "'; the dialects on the class path are " + names());
  }

  /**
   * The dialect of the database behind {@code dataSource}, by the product name its JDBC driver
   * reports; opens one connection to ask.
   *
   * @throws ConfigurationException naming the product if Once has no dialect for it
   */
  public static Dialect forDataSource(DataSource dataSource) {
    if (dataSource == null) {
      throw new ConfigurationException("dataSource", "is required");
    }
    String product;
    try (Connection c = dataSource.getConnection()) {
      product = c.getMetaData().getDatabaseProductName();
    } catch (SQLException e) {
      throw failure("read the database product name of the data source", e);
    }
    return forProduct(product);
  }

  /**
   * The exception for {@code e}, met while Once was doing {@code action}: a {@link
   * SchemaMissingException} when a dialect recognises a schema or database that does not exist
   * ({@link DialectProvider#missingSchema}), else a {@link StoreException}.
   */
  public static OnceException failure(String action, SQLException e) {
    for (DialectProvider p : Found.PROVIDERS) {
      var missing = p.missingSchema(e);
      if (missing.isPresent()) {
        MissingSchema m = missing.get();
        SchemaMissingException refused =
            SchemaMissingException.schemaNotFound(m.name(), m.where() + ": " + m.howToCreate());
        refused.initCause(e);
        return refused;
      }
    }
    return new StoreException(action, e);
  }

  /**
   * The dialect for a JDBC {@code DatabaseMetaData.getDatabaseProductName()}.
   *
   * @throws ConfigurationException naming the product if Once has no dialect for it
   */
  public static Dialect forProduct(String product) {
    String p = product == null ? "" : product.toLowerCase(Locale.ROOT);
    for (DialectProvider provider : Found.PROVIDERS) {
      if (provider.runsOn(p)) {
        return provider.dialect();
      }
    }
    throw new ConfigurationException(
        "dataSource",
        "is a '" + product + "' database; the dialects on the class path are " + names());
  }

  private static String names() {
    return Found.PROVIDERS.stream().map(DialectProvider::name).collect(Collectors.joining(", "));
  }
}
