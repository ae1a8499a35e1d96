package dev.once.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The operations part in standard SQL: {@code once_operation} rows, leases, reconcilers' claims.
 */
public class JdbcOperations implements OperationsDialect {
  protected final SqlFlavour flavour;
  protected final Sql sql;

  public JdbcOperations(SqlFlavour flavour) {
    this.flavour = flavour;
    this.sql = new Sql(flavour);
  }

  @Override
  public boolean insert(Connection c, OperationInsert op) throws SQLException {
    return sql.insertUnlessDuplicate(
        c,
        """
        INSERT INTO once_operation
               (operation_id, provider, idempotency_key, fingerprint, request, created_at,
                updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """,
        "operation_id",
        op.operationId(),
        op.provider(),
        op.idempotencyKey(),
        op.fingerprint(),
        op.request(),
        op.now(),
        op.now());
  }

  @Override
  public OperationRow find(Connection c, String operationId, boolean lock) throws SQLException {
    return sql.first(
        c,
        "SELECT * FROM once_operation WHERE operation_id = ?" + (lock ? " FOR UPDATE" : ""),
        this::row,
        operationId);
  }

  @Override
  public void claim(Connection c, String operationId, Lease lease) throws SQLException {
    sql.update(
        c,
        """
        UPDATE once_operation
           SET state = 'IN_FLIGHT', owner = ?, lease_until = ?, attempts = attempts + 1,
               first_attempt_at = COALESCE(first_attempt_at, ?), updated_at = ?
         WHERE operation_id = ?
        """,
        lease.owner(),
        lease.until(),
        lease.now(),
        lease.now(),
        operationId);
  }

  @Override
  public boolean recordResolution(
      Connection c, String operationId, String owner, String resolution, Instant now)
      throws SQLException {
    return sql.update(
            c,
            """
            UPDATE once_operation SET resolution = ?, updated_at = ?
             WHERE operation_id = ? AND owner = ? AND state = 'IN_FLIGHT'
            """,
            resolution,
            now,
            operationId,
            owner)
        == 1;
  }

  @Override
  public boolean store(Connection c, OperationUpdate o) throws SQLException {
    return sql.update(
            c,
            """
            UPDATE once_operation
               SET state = ?, result = ?, last_error = COALESCE(?, last_error),
                   next_attempt_at = ?, updated_at = ?, owner = NULL, lease_until = NULL
             WHERE operation_id = ?
               AND state IN ('PENDING', 'IN_FLIGHT', 'UNKNOWN')
               AND (owner = ? OR ?)
            """,
            o.state().name(),
            o.result(),
            o.error(),
            o.nextAttemptAt(),
            o.now(),
            o.operationId(),
            o.owner(),
            o.definitive())
        == 1;
  }

  /**
   * Locking reads that skip rows other reconcilers hold, then one UPDATE of the rows taken, in one
   * transaction (its own if the connection is in auto-commit). One read per open state, each in
   * {@code created_at} order on the index {@code (provider, state, created_at)}, stopping at {@code
   * limit} due rows; the oldest {@code limit} of them are taken (the others stay locked until the
   * commit, briefly). One read with an {@code OR} of the states instead read every row of the
   * provider, final ones included, and sorted them, for each claim: 2 003 rows and index entries
   * read at 2 000 operations of a provider on MariaDB, against 4 (ReconcilerClaimCostTest).
   */
  @Override
  public List<OperationRow> claimDue(Connection c, String provider, int limit, Lease lease)
      throws SQLException {
    boolean own = c.getAutoCommit();
    if (own) {
      c.setAutoCommit(false);
    }
    try {
      List<OperationRow> before = due(c, provider, limit, lease.now());
      if (!before.isEmpty()) {
        SqlList ids = SqlList.of("text", before.stream().map(OperationRow::id).toList());
        sql.update(
            c,
            """
            UPDATE once_operation
               SET state = 'IN_FLIGHT', owner = ?, lease_until = ?, attempts = attempts + 1,
                   first_attempt_at = COALESCE(first_attempt_at, ?), updated_at = ?
             WHERE %s
            """
                .formatted(sql.in("operation_id", ids)),
            lease.owner(),
            lease.until(),
            lease.now(),
            lease.now(),
            ids);
      }
      if (own) {
        c.commit();
      }
      return before;
    } catch (SQLException | RuntimeException e) {
      if (own) {
        rollbackQuietly(c);
      }
      throw e;
    } finally {
      if (own) {
        c.setAutoCommit(true);
      }
    }
  }

  /** The oldest {@code limit} due rows no other transaction holds, locked. */
  private List<OperationRow> due(Connection c, String provider, int limit, Instant now)
      throws SQLException {
    List<OperationRow> due = new ArrayList<>();
    for (String state : List.of("PENDING", "UNKNOWN", "IN_FLIGHT")) {
      String until =
          state.equals("IN_FLIGHT") ? "lease_until" : "COALESCE(next_attempt_at, created_at)";
      due.addAll(
          sql.list(
              c,
              """
              SELECT * FROM once_operation
               WHERE provider = ? AND state = ? AND %s <= ?
               ORDER BY created_at
               LIMIT ?
              """
                      .formatted(until)
                  + flavour.skipLocked(),
              this::row,
              provider,
              state,
              now,
              limit));
    }
    due.sort(Comparator.comparing(r -> r.view().createdAt()));
    return due.size() > limit ? List.copyOf(due.subList(0, limit)) : due;
  }

  @Override
  public boolean renew(Connection c, String operationId, Lease lease) throws SQLException {
    return sql.update(
            c,
            """
            UPDATE once_operation SET lease_until = ?, updated_at = ?
             WHERE operation_id = ? AND owner = ? AND state = 'IN_FLIGHT'
            """,
            lease.until(),
            lease.now(),
            operationId,
            lease.owner())
        == 1;
  }

  @Override
  public boolean release(Connection c, OperationRow before, String owner) throws SQLException {
    return sql.update(
            c,
            """
            UPDATE once_operation
               SET state = ?, owner = ?, lease_until = ?, attempts = ?, first_attempt_at = ?,
                   updated_at = ?
             WHERE operation_id = ? AND owner = ? AND state = 'IN_FLIGHT'
            """,
            before.state().name(),
            before.owner(),
            before.leaseUntil(),
            before.view().attempts(),
            before.view().firstAttemptAt(),
            before.view().updatedAt(),
            before.id(),
            owner)
        == 1;
  }

  /** The row at the cursor, its instants read by the flavour. */
  protected OperationRow row(java.sql.ResultSet rs) throws SQLException {
    return OperationRow.read(rs, flavour);
  }

  private static void rollbackQuietly(Connection c) {
    try {
      c.rollback();
    } catch (SQLException ignored) {
      // the connection is broken; the server rolls the transaction back by itself
    }
  }
}
