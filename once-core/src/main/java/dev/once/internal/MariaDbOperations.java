package dev.once.internal;

import static dev.once.internal.MariaDbJdbc.in;
import static dev.once.internal.MariaDbJdbc.instant;

import dev.once.OperationResult;
import dev.once.OperationState;
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

/** Operations on MariaDB/MySQL. */
public class MariaDbOperations implements OperationsDialect {

  @Override
  public boolean insert(Connection c, OperationInsert op) throws SQLException {
    return MariaDbJdbc.insertUnlessDuplicate(
        c,
        """
        INSERT INTO once_operation
               (operation_id, provider, idempotency_key, fingerprint, request, created_at,
                updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """,
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
    String sql =
        "SELECT * FROM once_operation WHERE operation_id = ?" + (lock ? " FOR UPDATE" : "");
    List<OperationRow> rows = rows(c, sql, operationId);
    return rows.isEmpty() ? null : rows.get(0);
  }

  @Override
  public void claim(Connection c, String operationId, Lease lease) throws SQLException {
    MariaDbJdbc.update(
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
    return MariaDbJdbc.update(
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
    return MariaDbJdbc.update(
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
   * A locking read that skips rows other reconcilers hold, then one UPDATE of those rows, in one
   * transaction (its own if the connection is in auto-commit).
   */
  @Override
  public List<OperationRow> claimDue(Connection c, String provider, int limit, Lease lease)
      throws SQLException {
    boolean own = c.getAutoCommit();
    if (own) {
      c.setAutoCommit(false);
    }
    try {
      Instant now = lease.now();
      List<OperationRow> before =
          rows(
              c,
              """
              SELECT * FROM once_operation
               WHERE provider = ?
                 AND (   (state IN ('PENDING', 'UNKNOWN')
                          AND COALESCE(next_attempt_at, created_at) <= ?)
                      OR (state = 'IN_FLIGHT' AND lease_until <= ?))
               ORDER BY created_at
               LIMIT ?
                 FOR UPDATE SKIP LOCKED
              """,
              provider,
              now,
              now,
              limit);
      if (!before.isEmpty()) {
        List<Object> params = new ArrayList<>(List.of(lease.owner(), lease.until(), now, now));
        before.forEach(r -> params.add(r.id()));
        MariaDbJdbc.update(
            c,
            """
            UPDATE once_operation
               SET state = 'IN_FLIGHT', owner = ?, lease_until = ?, attempts = attempts + 1,
                   first_attempt_at = COALESCE(first_attempt_at, ?), updated_at = ?
             WHERE operation_id IN (%s)
            """
                .formatted(in(before.size())),
            params.toArray());
      }
      if (own) {
        c.commit();
      }
      return before;
    } catch (SQLException | RuntimeException e) {
      if (own) {
        Jdbc.rollbackQuietly(c);
      }
      throw e;
    } finally {
      if (own) {
        c.setAutoCommit(true);
      }
    }
  }

  @Override
  public boolean renew(Connection c, String operationId, Lease lease) throws SQLException {
    return MariaDbJdbc.update(
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
    return MariaDbJdbc.update(
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

  private static List<OperationRow> rows(Connection c, String sql, Object... params)
      throws SQLException {
    List<OperationRow> rows = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      MariaDbJdbc.bind(ps, params);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(row(rs));
        }
      }
    }
    return rows;
  }

  private static OperationRow row(ResultSet rs) throws SQLException {
    OperationResult view =
        new OperationResult(
            rs.getString("operation_id"),
            rs.getString("provider"),
            rs.getString("idempotency_key"),
            OperationState.valueOf(rs.getString("state")),
            rs.getString("result"),
            rs.getString("last_error"),
            rs.getString("resolution"),
            rs.getInt("attempts"),
            instant(rs, "created_at"),
            instant(rs, "first_attempt_at"),
            instant(rs, "updated_at"));
    return new OperationRow(
        view,
        rs.getString("fingerprint"),
        rs.getString("request"),
        rs.getString("owner"),
        instant(rs, "lease_until"));
  }
}
