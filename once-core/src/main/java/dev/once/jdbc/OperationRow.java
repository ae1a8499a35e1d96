package dev.once.jdbc;

import dev.once.OperationResult;
import dev.once.OperationState;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;

/**
 * One {@code once_operation} row: the public view plus what only the engine needs.
 *
 * @param view what {@code Operations.find} shows
 * @param fingerprint SHA-256 of the request, to refuse a second request under the same id
 * @param request the request as stored
 * @param owner who holds it IN_FLIGHT, or null
 * @param leaseUntil until when the owner holds it, or null
 */
public record OperationRow(
    OperationResult view, String fingerprint, String request, String owner, Instant leaseUntil) {

  /** The operation id. */
  public String id() {
    return view.operationId();
  }

  /** The stored state. */
  public OperationState state() {
    return view.state();
  }

  /**
   * Reads the row at the result set's cursor (columns by their {@code once_operation} names), its
   * instants as standard timestamps.
   */
  public static OperationRow read(ResultSet rs) throws SQLException {
    return read(rs, OperationRow::instant);
  }

  /** Reads the row at the result set's cursor, its instants as {@code flavour} reads them. */
  public static OperationRow read(ResultSet rs, SqlFlavour flavour) throws SQLException {
    return read(rs, flavour::readInstant);
  }

  private interface InstantColumn {
    Instant read(ResultSet rs, String column) throws SQLException;
  }

  private static OperationRow read(ResultSet rs, InstantColumn instant) throws SQLException {
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
            instant.read(rs, "created_at"),
            instant.read(rs, "first_attempt_at"),
            instant.read(rs, "updated_at"));
    return new OperationRow(
        view,
        rs.getString("fingerprint"),
        rs.getString("request"),
        rs.getString("owner"),
        instant.read(rs, "lease_until"));
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    Timestamp t = rs.getTimestamp(column);
    return t == null ? null : t.toInstant();
  }
}
