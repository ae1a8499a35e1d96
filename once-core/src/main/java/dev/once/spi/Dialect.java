package dev.once.spi;

import java.sql.SQLException;
import java.util.List;

/**
 * All SQL Once runs against one kind of database, and how that database's errors are classified.
 * PostgreSQL is the one implementation today; the seam lets MariaDB/MySQL follow. Statements use
 * JDBC positional parameters; their parameter order is part of the contract documented on each.
 */
public interface Dialect {

  /** Name used in messages and in the schema resource path, e.g. {@code postgresql}. */
  String name();

  /** Migration resources under {@code dev/once/schema/<name>/}, in the order they apply. */
  List<String> schemaResources();

  /** Tables that must exist for Once to run. */
  List<String> requiredTables();

  /** (table name) → one row if the table exists in the current schema. */
  String tableExists();

  /** The current schema's name, for messages. */
  String currentSchema();

  /** (consumer_id, event_id) → 1 row inserted, or 0 if the marker already exists. */
  String insertMarker();

  /** (event_id, destination, key, type, payload, headers text[], partition) → 1, or 0 if known. */
  String insertOutbox();

  /** Wakes relays waiting for new outbox rows, at commit. No parameters. */
  String notifyOutbox();

  /** (int[] partitions) → the partitions this transaction now holds, until it ends. */
  String lockPartitions();

  /** (int[] partitions, now, limit) → pending rows, oldest first. */
  String claimOutbox();

  /** (sent_at, bigint[] ids). */
  String markSent();

  /** (error, next_attempt_at, id). */
  String markPublishFailed();

  /** Makes the current transaction's commit asynchronous; used only where losing it is safe. */
  String asyncCommit();

  /** (destination, consumer_group). Idempotent. */
  String bindQueue();

  /** (event_id, destination, key, type, payload, headers, enqueued_at, visible_at, destination). */
  String enqueue();

  /** Wakes receivers waiting on the table queue, at commit. */
  String notifyQueue();

  /** (visible_until, consumer_group, now, limit) → claimed rows. */
  String claimQueue();

  /** (bigint[] ids). */
  String ackQueue();

  /** (visible_at, bigint[] ids). */
  String nackQueue();

  /** (consumer_group) → the number of rows waiting for it, in flight or not. */
  String queueDepth();

  /** (consumer_group) → rows deleted. */
  String purgeQueue();

  /**
   * (operation_id, provider, idempotency_key, fingerprint, request, created_at, updated_at) → 1 row
   * inserted as PENDING, or 0 if the operation id is known.
   */
  String insertOperation();

  /** (operation_id) → the operation's row (all columns of {@code once_operation}). */
  String selectOperation();

  /** (operation_id) → the row, locked until the end of this (short) transaction. */
  String lockOperation();

  /** (owner, lease_until, now for first_attempt_at, updated_at, operation_id) → IN_FLIGHT. */
  String claimOperation();

  /** (resolution, updated_at, operation_id, owner) → 1 if this owner still holds it. */
  String resolveOperation();

  /**
   * (state, result, last_error, next_attempt_at, updated_at, operation_id, owner, boolean
   * definitive) → 1 if stored: a definitive answer is stored over any open state, anything else
   * only by the owner still holding it.
   */
  String storeOperation();

  /** (provider, now, now, limit) → ids of due open operations, oldest first. */
  String dueOperations();

  /** Whether the failed statement may succeed if the transaction is simply tried again. */
  boolean isTransient(SQLException e);

  /** Whether the failure means a table of the schema is missing. */
  boolean isMissingTable(SQLException e);
}
