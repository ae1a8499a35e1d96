package dev.once.internal;

import dev.once.spi.AdminDialect;
import dev.once.spi.Dialect;
import dev.once.spi.OperationsDialect;
import dev.once.spi.QueueDialect;
import dev.once.spi.RequestKeysDialect;
import dev.once.spi.StoreDialect;
import java.sql.SQLException;
import java.util.List;

/**
 * MariaDB 10.6+ and MySQL 8.0+ (InnoDB): its four parts and its error classes. No LISTEN/NOTIFY:
 * relays and table-queue receivers of other processes find new rows when they poll ({@code
 * OnceBuilder.relayIdleWait}, {@code TableQueueTransport.Builder.pollInterval}). Reach it through
 * {@code Dialects.mariadb()} or {@code Dialects.forDataSource(..)}.
 */
public class MariaDbDialect implements Dialect {
  private final StoreDialect store;
  private final QueueDialect queue = new MariaDbQueue();
  private final OperationsDialect operations = new MariaDbOperations();
  private final RequestKeysDialect requestKeys = new MariaDbRequestKeys();
  private final AdminDialect admin = new MariaDbAdmin();

  public MariaDbDialect() {
    this(new MariaDbStore());
  }

  /** With another store part: for tests that need a deliberately broken one. */
  public MariaDbDialect(StoreDialect store) {
    this.store = store;
  }

  @Override
  public String name() {
    return "mariadb";
  }

  @Override
  public List<String> schemaResources() {
    return List.of("V1__once.sql", "V2__once_suspect.sql", "V3__once_request.sql");
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
  public RequestKeysDialect requestKeys() {
    return requestKeys;
  }

  @Override
  public AdminDialect admin() {
    return admin;
  }

  /**
   * Deadlocks (1213, SQLState 40001) and lock wait timeouts (1205) roll back; InnoDB's REPEATABLE
   * READ takes gap and duplicate-key locks that make concurrent marker inserts deadlock now and
   * then. Connection failures (08xxx) too.
   */
  @Override
  public boolean isTransient(SQLException e) {
    String state = e.getSQLState();
    int code = e.getErrorCode();
    return code == 1213 // ER_LOCK_DEADLOCK
        || code == 1205 // ER_LOCK_WAIT_TIMEOUT
        || "40001".equals(state)
        || (state != null && state.startsWith("08"));
  }

  @Override
  public boolean isMissingTable(SQLException e) {
    return e.getErrorCode() == 1146 || "42S02".equals(e.getSQLState()); // ER_NO_SUCH_TABLE
  }
}
