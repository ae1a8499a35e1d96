package dev.once.internal;

import dev.once.OperationResult;
import dev.once.OperationState;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;

/** One {@code once_operation} row: the public view plus what only the engine needs. */
record OperationRow(
    OperationResult view, String fingerprint, String request, String owner, Instant leaseUntil) {

  String id() {
    return view.operationId();
  }

  OperationState state() {
    return view.state();
  }

  static OperationRow read(ResultSet rs) throws SQLException {
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

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    Timestamp t = rs.getTimestamp(column);
    return t == null ? null : t.toInstant();
  }
}
