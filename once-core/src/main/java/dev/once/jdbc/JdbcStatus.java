package dev.once.jdbc;

import dev.once.ConsumerActivity;
import dev.once.OperationState;
import dev.once.OperationStatus;
import dev.once.OperationStatus.StateCount;
import dev.once.OperationStatus.Uncertain;
import dev.once.WorkloadStatus;
import dev.once.WorkloadStatus.Backlog;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The status in standard SQL: counts with {@code CASE}, each oldest row's time read and its age
 * computed here; the schema from the JDBC metadata.
 */
public class JdbcStatus implements StatusDialect {
  protected final SqlFlavour flavour;
  protected final Sql sql;

  public JdbcStatus(SqlFlavour flavour) {
    this.flavour = flavour;
    this.sql = new Sql(flavour);
  }

  @Override
  public WorkloadStatus status(Connection c, Instant now) throws SQLException {
    String never = flavour.never();
    return new WorkloadStatus(
        now,
        backlogs(
            c,
            now,
            """
            SELECT destination,
                   sum(CASE WHEN next_attempt_at IS NULL OR next_attempt_at < %1$s THEN 1 ELSE 0 END)
                       AS waiting,
                   sum(CASE WHEN next_attempt_at = %1$s THEN 1 ELSE 0 END) AS parked,
                   min(CASE WHEN next_attempt_at IS NULL OR next_attempt_at < %1$s
                            THEN created_at END) AS oldest
              FROM once_outbox
             WHERE sent_at IS NULL
             GROUP BY destination
             ORDER BY destination
            """
                .formatted(never)),
        backlogs(
            c,
            now,
            """
            SELECT consumer_group, count(*) AS waiting, 0 AS parked, min(enqueued_at) AS oldest
              FROM once_queue
             GROUP BY consumer_group
             ORDER BY consumer_group
            """),
        backlogs(
            c,
            now,
            """
            SELECT consumer_id, count(*) AS waiting, 0 AS parked, min(first_failed_at) AS oldest
              FROM once_attempt
             GROUP BY consumer_id
             ORDER BY consumer_id
            """),
        backlogs(
            c,
            now,
            """
            SELECT consumer_id, count(*) AS waiting, 0 AS parked, min(dead_at) AS oldest
              FROM once_dead_letter
             WHERE status = 'dead'
             GROUP BY consumer_id
             ORDER BY consumer_id
            """),
        backlogs(
            c,
            now,
            """
            SELECT consumer_group, sum(behind) AS waiting, count(*) AS parked,
                   min(parked_at) AS oldest
              FROM (SELECT p.consumer_group, p.parked_at, %s AS behind
                      FROM once_parked_key p) k
             GROUP BY consumer_group
             ORDER BY consumer_group
            """
                .formatted(ParkedKeyStatements.BEHIND)));
  }

  /** Rows (name, waiting, parked, oldest). */
  private List<Backlog> backlogs(Connection c, Instant now, String query) throws SQLException {
    return sql.list(
        c,
        query,
        rs ->
            new Backlog(
                rs.getString(1),
                rs.getLong("waiting"),
                rs.getLong("parked"),
                age(readOldest(rs, "oldest"), now)));
  }

  /** A computed column: some drivers type {@code min(CASE … END)} loosely. */
  private Instant readOldest(ResultSet rs, String column) throws SQLException {
    return rs.getObject(column) == null ? null : flavour.readInstant(rs, column);
  }

  private static Duration age(Instant oldest, Instant now) {
    return oldest == null || oldest.isAfter(now) ? Duration.ZERO : Duration.between(oldest, now);
  }

  @Override
  public OperationStatus operationStatus(Connection c, Instant now, int limit) throws SQLException {
    List<StateCount> counts =
        sql.list(
            c,
            """
            SELECT state, count(*) AS count, min(created_at) AS oldest
              FROM once_operation
             GROUP BY state
             ORDER BY state
            """,
            rs ->
                new StateCount(
                    OperationState.valueOf(rs.getString("state")),
                    rs.getLong("count"),
                    age(flavour.readInstant(rs, "oldest"), now)));
    List<Uncertain> uncertain =
        sql.list(
            c,
            """
            SELECT operation_id, provider, idempotency_key, state, attempts, created_at,
                   next_attempt_at, resolution, last_error
              FROM once_operation
             WHERE state IN ('UNKNOWN', 'ABANDONED')
             ORDER BY created_at
             LIMIT ?
            """,
            rs ->
                new Uncertain(
                    rs.getString("operation_id"),
                    rs.getString("provider"),
                    rs.getString("idempotency_key"),
                    OperationState.valueOf(rs.getString("state")),
                    rs.getInt("attempts"),
                    age(flavour.readInstant(rs, "created_at"), now),
                    flavour.readInstant(rs, "next_attempt_at"),
                    rs.getString("resolution"),
                    rs.getString("last_error")),
            limit);
    return new OperationStatus(now, counts, uncertain);
  }

  @Override
  public ConsumerActivity consumerActivity(Connection c, Instant from, Instant to)
      throws SQLException {
    Map<String, ConsumerActivity.Counts> counts = new TreeMap<>();
    for (Object[] row :
        sql.list(
            c,
            """
            SELECT consumer_id, 'completed' AS what, count(*) FROM once_inbox
             WHERE processed_at >= ? AND processed_at < ? GROUP BY consumer_id
            UNION ALL
            SELECT consumer_id, 'dead', count(*) FROM once_dead_letter
             WHERE dead_at >= ? AND dead_at < ? GROUP BY consumer_id
            UNION ALL
            SELECT consumer_id, 'retried', count(*) FROM once_attempt
             WHERE last_failed_at >= ? AND last_failed_at < ? GROUP BY consumer_id
            """,
            rs -> new Object[] {rs.getString(1), rs.getString(2), rs.getLong(3)},
            from,
            to,
            from,
            to,
            from,
            to)) {
      long n = (Long) row[2];
      ConsumerActivity.Counts add =
          switch ((String) row[1]) {
            case "completed" -> new ConsumerActivity.Counts(n, 0, 0);
            case "dead" -> new ConsumerActivity.Counts(0, n, 0);
            default -> new ConsumerActivity.Counts(0, 0, n);
          };
      counts.merge(
          (String) row[0],
          add,
          (a, b) ->
              new ConsumerActivity.Counts(
                  a.completed() + b.completed(), a.dead() + b.dead(), a.retried() + b.retried()));
    }
    return new ConsumerActivity(from, to, counts);
  }

  /** The connection's schema, or its catalog where the database calls a schema so (MariaDB). */
  @Override
  public String currentSchema(Connection c) throws SQLException {
    String schema = c.getSchema();
    if (schema == null) {
      schema = c.getCatalog();
    }
    return schema == null ? "?" : schema;
  }

  @Override
  public boolean tableExists(Connection c, String table) throws SQLException {
    return sql.queryLong(
            c,
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?",
            currentSchema(c),
            table)
        > 0;
  }
}
