package dev.once.spi;

import dev.once.ConfigurationException;
import dev.once.StoreException;
import dev.once.internal.PostgresDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * The dialects Once ships, and the choice of one from a {@link DataSource}. Users rarely need this:
 * {@link dev.once.OnceBuilder} and {@link dev.once.Schema#apply(DataSource)} choose by themselves.
 */
public final class Dialects {
  private Dialects() {}

  /** PostgreSQL 13 or later (server or embedded). */
  public static Dialect postgresql() {
    return new PostgresDialect();
  }

  /**
   * The dialect of the database behind {@code dataSource}, by the product name its JDBC driver
   * reports.
   *
   * @throws ConfigurationException naming the product if Once has no dialect for it
   * @throws StoreException if no connection could be had
   */
  public static Dialect forDataSource(DataSource dataSource) {
    String product;
    try (Connection c = dataSource.getConnection()) {
      product = c.getMetaData().getDatabaseProductName();
    } catch (SQLException e) {
      throw new StoreException("read the database product name to choose a dialect", e);
    }
    return forProduct(product);
  }

  /** The dialect for a JDBC product name such as {@code PostgreSQL}. */
  public static Dialect forProduct(String product) {
    String p = product == null ? "" : product.toLowerCase(Locale.ROOT);
    if (p.contains("postgres")) {
      return postgresql();
    }
    throw new ConfigurationException(
        "dialect", "Once has no dialect for database product '" + product + "' (PostgreSQL)");
  }
}
