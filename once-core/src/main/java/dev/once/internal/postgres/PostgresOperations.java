package dev.once.internal.postgres;

import dev.once.jdbc.JdbcOperations;
import dev.once.jdbc.Lease;
import dev.once.jdbc.OperationRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Operations on PostgreSQL: the standard part, with reconcilers claiming in one UPDATE … RETURNING.
 */
public class PostgresOperations extends JdbcOperations {

  public PostgresOperations(PostgresFlavour flavour) {
    super(flavour);
  }

  /**
   * One statement: the pick is materialized, then updated; RETURNING shows the rows before. The
   * condition is one {@code CASE}, not an {@code OR} of the two kinds of due operation: with the
   * {@code OR} PostgreSQL read every open operation of the provider (a bitmap or sequential scan,
   * then a sort) for each claim, 4.5 ms at 2 000 open ones; with it, it walks the partial index
   * {@code once_operation_open} in {@code created_at} order and stops at the first due one.
   */
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
                 AND state IN ('PENDING', 'UNKNOWN', 'IN_FLIGHT')
                 AND CASE WHEN state = 'IN_FLIGHT' THEN lease_until
                          ELSE COALESCE(next_attempt_at, created_at) END <= ?
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
      sql.bind(ps, provider, now, limit, lease.owner(), lease.until(), now, now);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          before.add(OperationRow.read(rs));
        }
      }
    }
    return before;
  }
}
