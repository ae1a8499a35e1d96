package dev.once.internal;

import dev.once.spi.AdminDialect;
import dev.once.spi.Dialect;
import dev.once.spi.OperationsDialect;
import dev.once.spi.QueueDialect;
import dev.once.spi.StoreDialect;
import java.sql.SQLException;
import java.util.List;

/**
 * PostgreSQL: its four parts ({@link PostgresStore}, {@link PostgresQueue}, {@link
 * PostgresOperations}, {@link PostgresAdmin}) and its SQLState classes. Reach it through {@code
 * Dialects.postgresql()} or {@code Dialects.forDataSource(..)}.
 */
public class PostgresDialect implements Dialect {
  private final StoreDialect store;
  private final QueueDialect queue = new PostgresQueue();
  private final OperationsDialect operations = new PostgresOperations();
  private final AdminDialect admin = new PostgresAdmin();

  public PostgresDialect() {
    this(new PostgresStore());
  }

  /** With another store part: for tests that need a deliberately broken one. */
  public PostgresDialect(StoreDialect store) {
    this.store = store;
  }

  @Override
  public String name() {
    return "postgresql";
  }

  @Override
  public List<String> schemaResources() {
    return List.of(
        "V1__once_core.sql",
        "V2__once_operations.sql",
        "V3__once_workload.sql",
        "V4__once_dead_letter_crash.sql",
        "V5__once_suspect.sql");
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
    String state = e.getSQLState();
    if (state == null) {
      return false;
    }
    return state.equals("40001") // serialization_failure
        || state.equals("40P01") // deadlock_detected
        || state.equals("55P03") // lock_not_available: lock_timeout, see DatabaseTimeouts
        || state.startsWith("08") // connection exception
        || state.equals("57P01") // admin_shutdown
        || state.equals("57P03") // cannot_connect_now
        || state.equals("53300"); // too_many_connections
  }

  @Override
  public boolean isMissingTable(SQLException e) {
    return "42P01".equals(e.getSQLState()); // undefined_table
  }
}
