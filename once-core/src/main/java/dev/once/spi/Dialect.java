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

  /**
   * (consumer_id, event_ids text[]) → one row (event_id) per marker this statement inserted;
   * existing markers are skipped ({@code ON CONFLICT DO NOTHING}). Rows are inserted in array
   * order, which the caller sorts so that two transactions never wait for each other in a cycle.
   */
  String insertMarkers();

  /** (consumer_id, event_id): removes a marker this transaction inserted but will not act on. */
  String deleteMarker();

  /** (event_id, destination, key, type, payload, headers text[], partition) → 1, or 0 if known. */
  String insertOutbox();

  /** Wakes relays waiting for new outbox rows. No parameters; run outside other transactions. */
  String notifyOutbox();

  /** (int[] partitions) → the partitions this transaction now holds, until it ends. */
  String lockPartitions();

  /**
   * (now, limit) → the distinct key partitions of the oldest {@code limit} rows due for publishing.
   */
  String pendingPartitions();

  /** (int[] partitions, now, limit) → pending rows (with their failed attempts), oldest first. */
  String claimOutbox();

  /** (sent_at, bigint[] ids). */
  String markSent();

  /** (error, next_attempt_at, id). */
  String markPublishFailed();

  /**
   * Opens a transaction of the engine's queue work — a relay batch, a table-queue claim, ack or
   * nack — in one statement: its commit is asynchronous (losing it in a database crash only means a
   * republish or a redelivery), and its statements are planned as on a large table. Queue tables
   * are often empty when (auto)vacuum or analyze looks at them and full moments later; with those
   * statistics the planner picks a sequential scan and a sort for every claim, and a backlog then
   * makes each claim slower than the last. Scoped to the transaction.
   */
  String queueTransaction();

  /** (destination, consumer_group). Idempotent. */
  String bindQueue();

  /** (event_id, destination, key, type, payload, headers, enqueued_at, visible_at, destination). */
  String enqueue();

  /** Wakes receivers waiting on the table queue. Run outside other transactions. */
  String notifyQueue();

  /**
   * (consumer_group, now, limit, visible_until) → claimed rows. Runs in a {@link
   * #queueTransaction()}: a lost claim only shows the rows again sooner, one delivery count lower.
   * The rows to claim are picked once, in a materialized step: a plan that re-ran the pick for
   * every row it updates turned one claim into a minute of CPU on a table with misleading
   * statistics.
   */
  String claimQueue();

  /** (bigint[] ids). Runs in a {@link #queueTransaction()}: a lost ack means a redelivery. */
  String ackQueue();

  /** (visible_at, bigint[] ids). Runs in a {@link #queueTransaction()}. */
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

  /**
   * (provider, now, now, limit, owner, lease_until, now for first_attempt_at, updated_at) → up to
   * limit due operations, oldest first, skipping rows another transaction has locked, each moved to
   * IN_FLIGHT for owner in this same statement; returns every column as it was BEFORE the claim.
   */
  String claimDueOperations();

  /** (lease_until, updated_at, operation_id, owner) → 1 if this owner still holds it IN_FLIGHT. */
  String renewOperation();

  /**
   * (state, owner, lease_until, attempts, first_attempt_at, updated_at, operation_id, owner) → puts
   * back the row as it was before a claim that never called, if the claiming owner still holds it.
   */
  String releaseOperation();

  /** Whether the failed statement may succeed if the transaction is simply tried again. */
  boolean isTransient(SQLException e);

  /** Whether the failure means a table of the schema is missing. */
  boolean isMissingTable(SQLException e);

  // --- retries, dead letters, versions, retention, status ---

  /**
   * (consumer_id, text[] event_ids) → event_id, attempts, first_failed_at, error_class,
   * error_fingerprint, error_message of known failures (the error being the last one recorded).
   */
  String selectAttempts();

  /**
   * (consumer_id, event_id, attempts, first_failed_at, last_failed_at, error_class, fingerprint,
   * message). Keeps the higher count and the first failure time.
   */
  String upsertAttempt();

  /** (consumer_id, event_id). */
  String deleteAttempt();

  /**
   * (consumer_id, event_id, destination, key, type, payload, headers, attempts, first_failed_at,
   * last_failed_at, error_class, fingerprint, message, final_attempt_crashed, dead_at) → 1, or 0 if
   * that consumer already holds an open dead letter for the event. A replayed or discarded one is
   * reopened.
   */
  String insertDeadLetter();

  /**
   * (consumer, consumer, type, type, fingerprint, fingerprint, from, from, to, to, status, status,
   * event_id, event_id, bigint[] ids, bigint[] ids, limit) → dead letters, oldest first; a null
   * filter matches all.
   */
  String selectDeadLetters();

  /** (new status, resolved_at, id) → 1 if the dead letter was open and now is resolved. */
  String resolveDeadLetter();

  /** (consumer_id, event_id, action, actor, reason, acted_at). */
  String insertDeadLetterAction();

  /** (error, id): the relay gives up on an outbox row; it stays unsent and is never claimed. */
  String parkOutbox();

  /** (event_id) → a parked outbox row is pending again, attempts reset. */
  String unparkOutbox();

  /** (event_id) → deletes a parked (unsent) outbox row. */
  String deleteParkedOutbox();

  /**
   * (entity, entity_id, version) → 1 if this version is newer than the stored one (now stored), 0
   * if it is not newer.
   */
  String applyIfNewer();

  /** () → true if this session now holds the retention lock of the schema. */
  String tryRetentionLock();

  /** () → releases it. */
  String retentionUnlock();

  /** (before, limit) → inbox markers processed before {@code before}, deleted, at most limit. */
  String deleteOldMarkers();

  /** (before, limit) → outbox rows sent before {@code before}, deleted. */
  String deleteSentOutbox();

  /** (before, limit) → replayed or discarded dead letters resolved before {@code before}. */
  String deleteResolvedDeadLetters();

  /** (before, limit) → attempt rows whose last failure is older (the event is long gone). */
  String deleteOldAttempts();

  /** (now) → destination, pending, parked, oldest pending age in seconds. */
  String outboxStatus();

  /** (now) → consumer_group, waiting, oldest age in seconds (the table queue). */
  String queueStatus();

  /** (now) → consumer_id, events waiting for a retry, oldest first failure age in seconds. */
  String retryStatus();

  /** () → consumer_id, open dead letters. */
  String deadLetterStatus();

  // Admin reads for the dashboard (DeadLetters.page/groups/count/get, OperationStatus,
  // ConsumerActivity).

  /**
   * (filters as {@link #selectDeadLetters()} without the limit, beforeId, limit) → the same
   * columns, newest first, keyset-paged on id: only rows with {@code id < beforeId}.
   */
  String deadLetterPage();

  /** (filters as {@link #selectDeadLetters()} without the limit) → count. */
  String countDeadLetters();

  /** (id) → one dead letter, the columns of {@link #selectDeadLetters()}. */
  String selectDeadLetterById();

  /** (consumer_id, event_id) → action, actor, reason, acted_at, oldest first. */
  String selectDeadLetterActions();

  /**
   * (status, status, limit) → consumer_id, event_type, error_fingerprint, error_class, count,
   * first_dead_at, last_dead_at, sample_message; largest groups first.
   */
  String deadLetterGroups();

  /** (now) → state, count, oldest age in seconds of the operations in that state. */
  String operationStates();

  /**
   * (now, limit) → operation_id, provider, idempotency_key, state, attempts, age in seconds,
   * next_attempt_at, resolution, last_error of the UNKNOWN and ABANDONED operations, oldest first.
   */
  String uncertainOperations();

  /**
   * (from, to) ×3 → consumer_id, what ({@code completed}, {@code dead}, {@code retried}), count:
   * markers written, dead letters made and attempt rows last failed in {@code [from, to)}.
   */
  String consumerActivity();
}
