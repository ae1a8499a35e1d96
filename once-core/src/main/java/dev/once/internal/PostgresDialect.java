package dev.once.internal;

import dev.once.spi.Dialect;
import java.sql.SQLException;
import java.util.List;

/** Every statement Once runs on PostgreSQL, and PostgreSQL's SQLState classes. */
public class PostgresDialect implements Dialect {

  /** Advisory lock of the retention janitor, one per schema. */
  private static final String RETENTION_LOCK = "hashtext(current_schema() || '.once_retention')";

  /** Advisory lock namespace of the relay's partitions, made distinct per schema. */
  private static final String RELAY_LOCK_SPACE = "hashtext(current_schema() || '.once_outbox')";

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
        "V4__once_dead_letter_crash.sql");
  }

  @Override
  public List<String> requiredTables() {
    return List.of(
        "once_outbox",
        "once_inbox",
        "once_queue",
        "once_queue_binding",
        "once_operation",
        "once_attempt",
        "once_dead_letter",
        "once_dead_letter_action",
        "once_version");
  }

  @Override
  public String tableExists() {
    return """
        SELECT 1 FROM information_schema.tables
         WHERE table_schema = current_schema() AND table_name = ?
        """;
  }

  @Override
  public String currentSchema() {
    return "SELECT current_schema()";
  }

  @Override
  public String insertMarkers() {
    return """
        INSERT INTO once_inbox (consumer_id, event_id)
        SELECT ?, e FROM unnest(?::text[]) WITH ORDINALITY AS u(e, n) ORDER BY n
        ON CONFLICT DO NOTHING
        RETURNING event_id
        """;
  }

  @Override
  public String deleteMarker() {
    return "DELETE FROM once_inbox WHERE consumer_id = ? AND event_id = ?";
  }

  @Override
  public String insertOutbox() {
    return """
        INSERT INTO once_outbox
               (event_id, destination, event_key, event_type, payload, headers, key_partition)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (event_id) DO NOTHING
        """;
  }

  @Override
  public String notifyOutbox() {
    return "SELECT pg_notify('once_outbox', current_schema())";
  }

  @Override
  public String lockPartitions() {
    return """
        SELECT p FROM unnest(?::int[]) AS p
         WHERE pg_try_advisory_xact_lock(%s, p)
        """
        .formatted(RELAY_LOCK_SPACE);
  }

  @Override
  public String pendingPartitions() {
    return """
        SELECT DISTINCT key_partition FROM (
          SELECT key_partition FROM once_outbox
           WHERE sent_at IS NULL
             AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
           ORDER BY id
           LIMIT ?) oldest
        """;
  }

  @Override
  public String claimOutbox() {
    return """
        SELECT id, event_id, destination, event_key, event_type, payload, headers, created_at,
               attempts
          FROM once_outbox
         WHERE sent_at IS NULL
           AND key_partition = ANY(?::int[])
           AND (next_attempt_at IS NULL OR next_attempt_at <= ?)
         ORDER BY id
         LIMIT ?
        """;
  }

  @Override
  public String markSent() {
    return "UPDATE once_outbox SET sent_at = ? WHERE id = ANY(?::bigint[])";
  }

  @Override
  public String markPublishFailed() {
    return """
        UPDATE once_outbox
           SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?
         WHERE id = ?
        """;
  }

  @Override
  public String queueTransaction() {
    return """
        SELECT set_config('synchronous_commit', 'off', true),
               set_config('enable_seqscan', 'off', true),
               set_config('enable_bitmapscan', 'off', true)
        """;
  }

  @Override
  public String bindQueue() {
    return """
        INSERT INTO once_queue_binding (destination, consumer_group)
        VALUES (?, ?)
        ON CONFLICT DO NOTHING
        """;
  }

  @Override
  public String enqueue() {
    return """
        INSERT INTO once_queue
               (consumer_group, event_id, destination, event_key, event_type, payload, headers,
                enqueued_at, visible_at)
        SELECT b.consumer_group, ?, ?, ?, ?, ?, ?, ?, ?
          FROM once_queue_binding b
         WHERE b.destination = ?
        """;
  }

  @Override
  public String notifyQueue() {
    return "SELECT pg_notify('once_queue', current_schema())";
  }

  @Override
  public String claimQueue() {
    return """
        WITH c AS MATERIALIZED (
          SELECT id FROM once_queue
           WHERE consumer_group = ? AND visible_at <= ?
           ORDER BY id
           LIMIT ?
           FOR UPDATE SKIP LOCKED)
        UPDATE once_queue q
           SET delivery_count = q.delivery_count + 1, visible_at = ?
          FROM c
         WHERE q.id = c.id
        RETURNING q.id, q.event_id, q.destination, q.event_key, q.event_type, q.payload, q.headers,
                  q.delivery_count
        """;
  }

  @Override
  public String ackQueue() {
    return "DELETE FROM once_queue WHERE id = ANY(?::bigint[])";
  }

  @Override
  public String nackQueue() {
    return "UPDATE once_queue SET visible_at = ? WHERE id = ANY(?::bigint[])";
  }

  @Override
  public String queueDepth() {
    return "SELECT count(*) FROM once_queue WHERE consumer_group = ?";
  }

  @Override
  public String purgeQueue() {
    return "DELETE FROM once_queue WHERE consumer_group = ?";
  }

  @Override
  public String insertOperation() {
    return """
        INSERT INTO once_operation
               (operation_id, provider, idempotency_key, fingerprint, request, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (operation_id) DO NOTHING
        """;
  }

  @Override
  public String selectOperation() {
    return "SELECT * FROM once_operation WHERE operation_id = ?";
  }

  @Override
  public String lockOperation() {
    return "SELECT * FROM once_operation WHERE operation_id = ? FOR UPDATE";
  }

  @Override
  public String claimOperation() {
    return """
        UPDATE once_operation
           SET state = 'IN_FLIGHT', owner = ?, lease_until = ?, attempts = attempts + 1,
               first_attempt_at = COALESCE(first_attempt_at, ?), updated_at = ?
         WHERE operation_id = ?
        """;
  }

  @Override
  public String resolveOperation() {
    return """
        UPDATE once_operation SET resolution = ?, updated_at = ?
         WHERE operation_id = ? AND owner = ? AND state = 'IN_FLIGHT'
        """;
  }

  @Override
  public String storeOperation() {
    return """
        UPDATE once_operation
           SET state = ?, result = ?, last_error = COALESCE(?, last_error), next_attempt_at = ?,
               updated_at = ?, owner = NULL, lease_until = NULL
         WHERE operation_id = ?
           AND state IN ('PENDING', 'IN_FLIGHT', 'UNKNOWN')
           AND (owner = ? OR ?)
        """;
  }

  @Override
  public String dueOperations() {
    return """
        SELECT operation_id FROM once_operation
         WHERE provider = ?
           AND (   (state IN ('PENDING', 'UNKNOWN') AND COALESCE(next_attempt_at, created_at) <= ?)
                OR (state = 'IN_FLIGHT' AND lease_until <= ?))
         ORDER BY created_at
         LIMIT ?
        """;
  }

  @Override
  public String claimDueOperations() {
    return """
        WITH due AS MATERIALIZED (
          SELECT * FROM once_operation
           WHERE provider = ?
             AND (   (state IN ('PENDING', 'UNKNOWN') AND COALESCE(next_attempt_at, created_at) <= ?)
                  OR (state = 'IN_FLIGHT' AND lease_until <= ?))
           ORDER BY created_at
           LIMIT ?
           FOR UPDATE SKIP LOCKED)
        UPDATE once_operation o
           SET state = 'IN_FLIGHT', owner = ?, lease_until = ?, attempts = o.attempts + 1,
               first_attempt_at = COALESCE(o.first_attempt_at, ?), updated_at = ?
          FROM due
         WHERE o.operation_id = due.operation_id
        RETURNING due.*
        """;
  }

  @Override
  public String renewOperation() {
    return """
        UPDATE once_operation SET lease_until = ?, updated_at = ?
         WHERE operation_id = ? AND owner = ? AND state = 'IN_FLIGHT'
        """;
  }

  @Override
  public String releaseOperation() {
    return """
        UPDATE once_operation
           SET state = ?, owner = ?, lease_until = ?, attempts = ?, first_attempt_at = ?,
               updated_at = ?
         WHERE operation_id = ? AND owner = ? AND state = 'IN_FLIGHT'
        """;
  }

  @Override
  public boolean isTransient(SQLException e) {
    String state = e.getSQLState();
    if (state == null) {
      return false;
    }
    return state.equals("40001") // serialization_failure
        || state.equals("40P01") // deadlock_detected
        || state.startsWith("08") // connection exception
        || state.equals("57P01") // admin_shutdown
        || state.equals("57P03") // cannot_connect_now
        || state.equals("53300"); // too_many_connections
  }

  @Override
  public boolean isMissingTable(SQLException e) {
    return "42P01".equals(e.getSQLState()); // undefined_table
  }

  @Override
  public String selectAttempts() {
    return """
        SELECT event_id, attempts, first_failed_at, error_class, error_fingerprint, error_message
          FROM once_attempt
         WHERE consumer_id = ? AND event_id = ANY(?::text[])
        """;
  }

  @Override
  public String upsertAttempt() {
    return """
        INSERT INTO once_attempt AS a
               (consumer_id, event_id, attempts, first_failed_at, last_failed_at,
                error_class, error_fingerprint, error_message)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (consumer_id, event_id) DO UPDATE
           SET attempts = greatest(a.attempts + 1, EXCLUDED.attempts),
               last_failed_at = EXCLUDED.last_failed_at,
               error_class = EXCLUDED.error_class,
               error_fingerprint = EXCLUDED.error_fingerprint,
               error_message = EXCLUDED.error_message
        """;
  }

  @Override
  public String deleteAttempt() {
    return "DELETE FROM once_attempt WHERE consumer_id = ? AND event_id = ?";
  }

  @Override
  public String insertDeadLetter() {
    return """
        INSERT INTO once_dead_letter AS d
               (consumer_id, event_id, destination, event_key, event_type, payload, headers,
                attempts, first_failed_at, last_failed_at, error_class, error_fingerprint,
                error_message, final_attempt_crashed, dead_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (consumer_id, event_id) DO UPDATE
           SET status = 'dead', resolved_at = NULL, dead_at = EXCLUDED.dead_at,
               payload = EXCLUDED.payload, headers = EXCLUDED.headers,
               attempts = EXCLUDED.attempts, first_failed_at = EXCLUDED.first_failed_at,
               last_failed_at = EXCLUDED.last_failed_at, error_class = EXCLUDED.error_class,
               error_fingerprint = EXCLUDED.error_fingerprint,
               error_message = EXCLUDED.error_message,
               final_attempt_crashed = EXCLUDED.final_attempt_crashed
         WHERE d.status <> 'dead'
        """;
  }

  @Override
  public String selectDeadLetters() {
    return """
        SELECT id, consumer_id, event_id, destination, event_key, event_type, payload, headers,
               attempts, first_failed_at, last_failed_at, error_class, error_fingerprint,
               error_message, final_attempt_crashed, status, dead_at, resolved_at
          FROM once_dead_letter
         WHERE (?::text IS NULL OR consumer_id = ?)
           AND (?::text IS NULL OR event_type = ?)
           AND (?::text IS NULL OR error_fingerprint = ?)
           AND (?::timestamptz IS NULL OR dead_at >= ?)
           AND (?::timestamptz IS NULL OR dead_at < ?)
           AND (?::text IS NULL OR status = ?)
           AND (?::text IS NULL OR event_id = ?)
           AND (?::bigint[] IS NULL OR id = ANY(?::bigint[]))
         ORDER BY id
         LIMIT ?
        """;
  }

  @Override
  public String resolveDeadLetter() {
    return """
        UPDATE once_dead_letter SET status = ?, resolved_at = ?
         WHERE id = ? AND status = 'dead'
        """;
  }

  @Override
  public String insertDeadLetterAction() {
    return """
        INSERT INTO once_dead_letter_action (consumer_id, event_id, action, actor, reason, acted_at)
        VALUES (?, ?, ?, ?, ?, ?)
        """;
  }

  @Override
  public String parkOutbox() {
    return """
        UPDATE once_outbox
           SET attempts = attempts + 1, last_error = ?, next_attempt_at = 'infinity'
         WHERE id = ?
        """;
  }

  @Override
  public String unparkOutbox() {
    return """
        UPDATE once_outbox SET attempts = 0, next_attempt_at = NULL, last_error = NULL
         WHERE event_id = ? AND sent_at IS NULL
        """;
  }

  @Override
  public String deleteParkedOutbox() {
    return """
        DELETE FROM once_outbox
         WHERE event_id = ? AND sent_at IS NULL AND next_attempt_at = 'infinity'
        """;
  }

  @Override
  public String applyIfNewer() {
    return """
        INSERT INTO once_version AS v (entity, entity_id, version)
        VALUES (?, ?, ?)
        ON CONFLICT (entity, entity_id) DO UPDATE
           SET version = EXCLUDED.version
         WHERE v.version < EXCLUDED.version
        """;
  }

  @Override
  public String tryRetentionLock() {
    return "SELECT pg_try_advisory_lock(%s)".formatted(RETENTION_LOCK);
  }

  @Override
  public String retentionUnlock() {
    return "SELECT pg_advisory_unlock(%s)".formatted(RETENTION_LOCK);
  }

  @Override
  public String deleteOldMarkers() {
    return """
        DELETE FROM once_inbox
         WHERE ctid = ANY(ARRAY(SELECT ctid FROM once_inbox WHERE processed_at < ? LIMIT ?))
        """;
  }

  @Override
  public String deleteSentOutbox() {
    return """
        WITH old AS MATERIALIZED (
          SELECT id FROM once_outbox
           WHERE sent_at IS NOT NULL AND sent_at < ?
           ORDER BY sent_at LIMIT ?
           FOR UPDATE SKIP LOCKED)
        DELETE FROM once_outbox o USING old WHERE o.id = old.id
        """;
  }

  @Override
  public String deleteResolvedDeadLetters() {
    return """
        DELETE FROM once_dead_letter
         WHERE id IN (SELECT id FROM once_dead_letter
                       WHERE status <> 'dead' AND resolved_at < ? LIMIT ?)
        """;
  }

  @Override
  public String deleteOldAttempts() {
    return """
        DELETE FROM once_attempt
         WHERE (consumer_id, event_id) IN (SELECT consumer_id, event_id FROM once_attempt
                                            WHERE last_failed_at < ? LIMIT ?)
        """;
  }

  @Override
  public String outboxStatus() {
    return """
        SELECT destination,
               count(*) FILTER (WHERE next_attempt_at IS DISTINCT FROM 'infinity') AS pending,
               count(*) FILTER (WHERE next_attempt_at = 'infinity') AS parked,
               coalesce(extract(epoch FROM ?::timestamptz - min(created_at)
                   FILTER (WHERE next_attempt_at IS DISTINCT FROM 'infinity')), 0) AS oldest
          FROM once_outbox
         WHERE sent_at IS NULL
         GROUP BY destination
         ORDER BY destination
        """;
  }

  @Override
  public String queueStatus() {
    return """
        SELECT consumer_group, count(*) AS waiting,
               coalesce(extract(epoch FROM ?::timestamptz - min(enqueued_at)), 0) AS oldest
          FROM once_queue
         GROUP BY consumer_group
         ORDER BY consumer_group
        """;
  }

  @Override
  public String retryStatus() {
    return """
        SELECT consumer_id, count(*) AS waiting,
               coalesce(extract(epoch FROM ?::timestamptz - min(first_failed_at)), 0) AS oldest
          FROM once_attempt
         GROUP BY consumer_id
         ORDER BY consumer_id
        """;
  }

  @Override
  public String deadLetterStatus() {
    return """
        SELECT consumer_id, count(*) FROM once_dead_letter
         WHERE status = 'dead'
         GROUP BY consumer_id
         ORDER BY consumer_id
        """;
  }

  @Override
  public String deadLetterPage() {
    return """
        SELECT id, consumer_id, event_id, destination, event_key, event_type, payload, headers,
               attempts, first_failed_at, last_failed_at, error_class, error_fingerprint,
               error_message, final_attempt_crashed, status, dead_at, resolved_at
          FROM once_dead_letter
         WHERE (?::text IS NULL OR consumer_id = ?)
           AND (?::text IS NULL OR event_type = ?)
           AND (?::text IS NULL OR error_fingerprint = ?)
           AND (?::timestamptz IS NULL OR dead_at >= ?)
           AND (?::timestamptz IS NULL OR dead_at < ?)
           AND (?::text IS NULL OR status = ?)
           AND (?::text IS NULL OR event_id = ?)
           AND (?::bigint[] IS NULL OR id = ANY(?::bigint[]))
           AND id < ?
         ORDER BY id DESC
         LIMIT ?
        """;
  }

  @Override
  public String countDeadLetters() {
    return """
        SELECT count(*)
          FROM once_dead_letter
         WHERE (?::text IS NULL OR consumer_id = ?)
           AND (?::text IS NULL OR event_type = ?)
           AND (?::text IS NULL OR error_fingerprint = ?)
           AND (?::timestamptz IS NULL OR dead_at >= ?)
           AND (?::timestamptz IS NULL OR dead_at < ?)
           AND (?::text IS NULL OR status = ?)
           AND (?::text IS NULL OR event_id = ?)
           AND (?::bigint[] IS NULL OR id = ANY(?::bigint[]))
        """;
  }

  @Override
  public String selectDeadLetterById() {
    return """
        SELECT id, consumer_id, event_id, destination, event_key, event_type, payload, headers,
               attempts, first_failed_at, last_failed_at, error_class, error_fingerprint,
               error_message, final_attempt_crashed, status, dead_at, resolved_at
          FROM once_dead_letter
         WHERE id = ?
        """;
  }

  @Override
  public String selectDeadLetterActions() {
    return """
        SELECT action, actor, reason, acted_at FROM once_dead_letter_action
         WHERE consumer_id = ? AND event_id = ?
         ORDER BY id
        """;
  }

  @Override
  public String deadLetterGroups() {
    return """
        SELECT consumer_id, event_type, error_fingerprint, min(error_class) AS error_class,
               count(*) AS count, min(dead_at) AS first_dead_at, max(dead_at) AS last_dead_at,
               max(error_message) AS sample_message
          FROM once_dead_letter
         WHERE (?::text IS NULL OR status = ?)
         GROUP BY consumer_id, event_type, error_fingerprint
         ORDER BY count(*) DESC, consumer_id, event_type, error_fingerprint
         LIMIT ?
        """;
  }

  @Override
  public String operationStates() {
    return """
        SELECT state, count(*) AS count,
               coalesce(extract(epoch FROM ?::timestamptz - min(created_at)), 0) AS oldest
          FROM once_operation
         GROUP BY state
         ORDER BY state
        """;
  }

  @Override
  public String uncertainOperations() {
    return """
        SELECT operation_id, provider, idempotency_key, state, attempts,
               extract(epoch FROM ?::timestamptz - created_at) AS age, next_attempt_at,
               resolution, last_error
          FROM once_operation
         WHERE state IN ('UNKNOWN', 'ABANDONED')
         ORDER BY created_at
         LIMIT ?
        """;
  }

  @Override
  public String consumerActivity() {
    return """
        SELECT consumer_id, 'completed' AS what, count(*) FROM once_inbox
         WHERE processed_at >= ? AND processed_at < ? GROUP BY consumer_id
        UNION ALL
        SELECT consumer_id, 'dead', count(*) FROM once_dead_letter
         WHERE dead_at >= ? AND dead_at < ? GROUP BY consumer_id
        UNION ALL
        SELECT consumer_id, 'retried', count(*) FROM once_attempt
         WHERE last_failed_at >= ? AND last_failed_at < ? GROUP BY consumer_id
        """;
  }
}
