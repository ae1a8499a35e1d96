package dev.once.internal;

import dev.once.spi.Lease;
import dev.once.spi.OperationInsert;
import dev.once.spi.OperationOutcome;
import dev.once.spi.OperationRow;
import dev.once.spi.OperationsDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Operations on PostgreSQL. */
public class PostgresOperations implements OperationsDialect {

  @Override
  public boolean insert(Connection c, OperationInsert op) throws SQLException {
    return Jdbc.update(
            c,
            """
            INSERT INTO once_operation
                   (operation_id, provider, idempotency_key, fingerprint, request, created_at,
                    updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (operation_id) DO NOTHING
            """,
            op.operationId(),
            op.provider(),
            op.idempotencyKey(),
            op.fingerprint(),
            op.request(),
            op.now(),
            op.now())
        == 1;
  }

  @Override
  public OperationRow find(Connection c, String operationId, boolean lock) throws SQLException {
    String sql =
        "SELECT * FROM once_operation WHERE operation_id = ?" + (lock ? " FOR UPDATE" : "");
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, operationId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? OperationRow.read(rs) : null;
      }
    }
  }

  @Override
  public void claim(Connection c, String operationId, Lease lease) throws SQLException {
    Jdbc.update(
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
    return Jdbc.update(
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
  public boolean store(Connection c, OperationOutcome o) throws SQLException {
    return Jdbc.update(
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

  /** One statement: the pick is materialized, then updated; RETURNING shows the rows before. */
  @Override
  public List<OperationRow> claimDue(Connection c, String provider, int limit, Lease lease)
      throws SQLException {
    List<OperationRow> before = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            """
            WITH due AS MATERIALIZED (
              SELECT * FROM once_operation
               WHERE provider = ?
                 AND (   (state IN ('PENDING', 'UNKNOWN')
                          AND COALESCE(next_attempt_at, created_at) <= ?)
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
            """)) {
      Instant now = lease.now();
      Jdbc.bind(ps, provider, now, now, limit, lease.owner(), lease.until(), now, now);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          before.add(OperationRow.read(rs));
        }
      }
    }
    return before;
  }

  @Override
  public boolean renew(Connection c, String operationId, Lease lease) throws SQLException {
    return Jdbc.update(
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
    return Jdbc.update(
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
}
