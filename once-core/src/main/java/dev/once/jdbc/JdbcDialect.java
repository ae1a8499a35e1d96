package dev.once.jdbc;

import dev.once.spi.AdminDialect;
import dev.once.spi.Dialect;
import dev.once.spi.OperationsDialect;
import dev.once.spi.QueueDialect;
import dev.once.spi.SqlFlavour;
import dev.once.spi.StoreDialect;
import java.sql.SQLException;
import java.util.List;

/**
 * A dialect of JDBC parts over one {@link SqlFlavour}: its name, schema and errors are the
 * flavour's.
 */
public class JdbcDialect implements Dialect {
  private final SqlFlavour flavour;
  private final StoreDialect store;
  private final QueueDialect queue;
  private final OperationsDialect operations;
  private final AdminDialect admin;

  public JdbcDialect(
      SqlFlavour flavour,
      StoreDialect store,
      QueueDialect queue,
      OperationsDialect operations,
      AdminDialect admin) {
    this.flavour = flavour;
    this.store = store;
    this.queue = queue;
    this.operations = operations;
    this.admin = admin;
  }

  /** The same dialect with another store part: for tests that need a deliberately broken one. */
  public JdbcDialect withStore(StoreDialect store) {
    return new JdbcDialect(flavour, store, queue, operations, admin);
  }

  @Override
  public SqlFlavour flavour() {
    return flavour;
  }

  @Override
  public String name() {
    return flavour.name();
  }

  @Override
  public List<String> schemaResources() {
    return flavour.schemaResources();
  }

  @Override
  public StoreDialect store() {
    return store;
  }

  @Override
  public QueueDialect queue() {
    return queue;
  }

  @Override
  public OperationsDialect operations() {
    return operations;
  }

  @Override
  public AdminDialect admin() {
    return admin;
  }

  @Override
  public boolean isTransient(SQLException e) {
    return flavour.isTransient(e);
  }

  @Override
  public boolean isMissingTable(SQLException e) {
    return flavour.isMissingTable(e);
  }
}
