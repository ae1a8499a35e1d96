package dev.once.internal;

import dev.once.jdbc.JdbcDialect;
import dev.once.spi.Dialect;
import dev.once.spi.DialectProvider;

/** The dialects once-core ships, found by {@code Dialects} through {@code ServiceLoader}. */
public final class ShippedDialects {
  private ShippedDialects() {}

  /** PostgreSQL 14+, server or embedded. */
  public static final class Postgresql implements DialectProvider {
    @Override
    public String name() {
      return "postgresql";
    }

    @Override
    public boolean runsOn(String product) {
      return product.contains("postgresql");
    }

    @Override
    public Dialect dialect() {
      PostgresFlavour flavour = new PostgresFlavour();
      return new JdbcDialect(
          flavour,
          new PostgresStore(flavour),
          new PostgresQueue(),
          new PostgresOperations(),
          new PostgresAdmin());
    }
  }

  /** MariaDB 10.6+ and MySQL 8.0+. */
  public static final class Mariadb implements DialectProvider {
    @Override
    public String name() {
      return "mariadb";
    }

    @Override
    public boolean runsOn(String product) {
      return product.contains("mariadb") || product.contains("mysql");
    }

    @Override
    public Dialect dialect() {
      MariaDbFlavour flavour = new MariaDbFlavour();
      return new JdbcDialect(
          flavour,
          new dev.once.jdbc.JdbcStore(flavour),
          new MariaDbQueue(),
          new MariaDbOperations(),
          new MariaDbAdmin());
    }
  }
}
