package dev.once.internal;

import dev.once.jdbc.JdbcDialect;
import dev.once.spi.Dialect;
import dev.once.spi.DialectProvider;

/** The dialects once-core ships, found by {@code Dialects} through {@code ServiceLoader}. */
public final class ShippedDialects {
  private ShippedDialects() {}

  /** PostgreSQL 14+, server or embedded: the standard parts, four of them with faster forms. */
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
      return JdbcDialect.builder(flavour)
          .store(new PostgresStore(flavour))
          .queue(new PostgresQueue(flavour))
          .operations(new PostgresOperations(flavour))
          .deadLetters(new PostgresDeadLetters(flavour))
          .build();
    }
  }

  /** MariaDB 10.6+ and MySQL 8.0+: the standard parts over its flavour. */
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
      return JdbcDialect.of(new MariaDbFlavour());
    }
  }
}
