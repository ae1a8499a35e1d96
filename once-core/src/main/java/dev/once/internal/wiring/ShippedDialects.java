package dev.once.internal.wiring;

import dev.once.internal.mariadb.MariaDbFlavour;
import dev.once.internal.mariadb.MariaDbStatus;
import dev.once.internal.postgres.PostgresDeadLetters;
import dev.once.internal.postgres.PostgresFlavour;
import dev.once.internal.postgres.PostgresOperations;
import dev.once.internal.postgres.PostgresQueue;
import dev.once.internal.postgres.PostgresRequestKeys;
import dev.once.internal.postgres.PostgresStatus;
import dev.once.internal.postgres.PostgresStore;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.DialectProvider;
import dev.once.jdbc.JdbcDialect;
import dev.once.jdbc.MissingSchema;
import java.sql.SQLException;
import java.util.Optional;

/** The dialects once-core ships, found by {@code Dialects} through {@code ServiceLoader}. */
public final class ShippedDialects {
  private ShippedDialects() {}

  /** PostgreSQL 14+, server or embedded: the standard parts, six of them with faster forms. */
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
    public PostgresFlavour flavour() {
      return new PostgresFlavour();
    }

    @Override
    public Dialect dialect() {
      PostgresFlavour flavour = flavour();
      return JdbcDialect.builder(flavour)
          .store(new PostgresStore(flavour))
          .queue(new PostgresQueue(flavour))
          .operations(new PostgresOperations(flavour))
          .deadLetters(new PostgresDeadLetters(flavour))
          .requestKeys(new PostgresRequestKeys(flavour))
          .status(new PostgresStatus(flavour))
          .build();
    }
  }

  /**
   * MariaDB 10.6+ and MySQL 8.0+: the standard parts over its flavour (request keys on MariaDB
   * only: the flavour refuses MySQL's by name).
   */
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
    public MariaDbFlavour flavour() {
      return new MariaDbFlavour();
    }

    @Override
    public Dialect dialect() {
      MariaDbFlavour flavour = flavour();
      return JdbcDialect.builder(flavour).status(new MariaDbStatus(flavour)).build();
    }

    @Override
    public Optional<MissingSchema> missingSchema(SQLException failure) {
      return MariaDbStatus.unknownDatabase(failure);
    }
  }
}
