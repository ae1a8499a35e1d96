package dev.once.jdbc;

import java.sql.SQLException;
import java.util.List;

/**
 * Everything Once needs from one kind of database, in parts by concern, plus how that database's
 * errors are classified: the engine's view of the store. Get one with {@link
 * Dialects#forDataSource}. A new database does not implement it: it writes a {@link SqlFlavour} and
 * a {@link DialectProvider}, whose dialect is {@link JdbcDialect} over the flavour. Every method of
 * the parts runs its statements on the connection it is given, inside the caller's transaction
 * unless its Javadoc says otherwise; none commits.
 */
public interface Dialect {

  /** Name used in messages and in the schema resource path, e.g. {@code postgresql}. */
  String name();

  /** Migration resources under {@code dev/once/schema/<name>/}, in the order they apply. */
  List<String> schemaResources();

  /**
   * How this database differs from standard SQL: its locks, transaction bounds and wake-ups, and
   * what modules that add statements of their own use (through {@link Sql}).
   */
  SqlFlavour flavour();

  /** Inbox markers, the outbox, relay coordination and cross-process wake-ups. */
  StoreDialect store();

  /** The table queue; only the table-queue transport asks for it. */
  QueueDialect queue();

  /** Operations with idempotency keys and their reconciliation. */
  OperationsDialect operations();

  /** Failed attempts and suspects. */
  AttemptsDialect attempts();

  /** Dead letters and parked outbox rows. */
  DeadLettersDialect deadLetters();

  /** What retention deletes, and its lock. */
  RetentionDialect retention();

  /** The workload status and the schema check. */
  StatusDialect status();

  /** Request keys of HTTP requests ({@code Idempotency-Key}) and their stored responses. */
  RequestKeysDialect requestKeys();

  /** Whether the failed statement may succeed if the transaction is simply tried again. */
  boolean isTransient(SQLException e);

  /** Whether the failure means a table of the schema is missing. */
  boolean isMissingTable(SQLException e);
}
