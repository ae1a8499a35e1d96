package dev.once.spi;

import dev.once.ConfigurationException;
import dev.once.StoreException;
import dev.once.internal.MariaDbDialect;
import dev.once.internal.PostgresDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import javax.sql.DataSource;

/** The dialects Once ships, by name or chosen from a data source's metadata. */
public final class Dialects {
  private Dialects() {}

  /** PostgreSQL 14 and later (server or embedded). */
  public static Dialect postgresql() {
    return new PostgresDialect();
  }

  /**
   * MariaDB 10.6 and later (tested on 10.11), and MySQL 8.0 and later: the same SQL. No
   * cross-process wake-ups; see docs/MARIADB.md.
   */
  public static Dialect mariadb() {
    return new MariaDbDialect();
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
      throw new StoreException("read the database product name of the data source", e);
    }
    return forProduct(product);
  }

  /**
   * The dialect for a JDBC {@code DatabaseMetaData.getDatabaseProductName()}.
   *
   * @throws ConfigurationException naming the product if Once has no dialect for it
   */
  public static Dialect forProduct(String product) {
    String p = product == null ? "" : product.toLowerCase(Locale.ROOT);
    if (p.contains("postgresql")) {
      return postgresql();
    }
    if (p.contains("mariadb") || p.contains("mysql")) {
      return mariadb();
    }
    throw new ConfigurationException(
        "dataSource",
        "is a '" + product + "' database; Once has dialects for PostgreSQL, MariaDB and MySQL");
  }
}
