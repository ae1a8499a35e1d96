package dev.once.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;

/**
 * The operations part of a dialect: {@code once_operation} rows, their leases and the claims of
 * reconcilers. Only users of {@code once.operations(..)} need it.
 */
public interface OperationsDialect {

  /** Stores a new operation as PENDING; false (nothing changed) if its id is known. */
  boolean insert(Connection c, OperationInsert operation) throws SQLException;

  /**
   * The operation's row, or null if unknown; with {@code lock}, the row stays locked against other
   * writers until this transaction ends.
   */
  OperationRow find(Connection c, String operationId, boolean lock) throws SQLException;

  /**
   * Moves the operation to IN_FLIGHT for the lease's owner: one more attempt, its first attempt
   * time set if unset. The caller holds the row lock and decided that the claim is allowed.
   */
  void claim(Connection c, String operationId, Lease lease) throws SQLException;

  /**
   * Records how reconciliation decided ({@code resolution}); true if {@code owner} still holds the
   * operation IN_FLIGHT (only then is it recorded).
   */
  boolean recordResolution(
      Connection c, String operationId, String owner, String resolution, Instant now)
      throws SQLException;

  /**
   * Stores what an attempt came to and clears the lease, if the operation is still open; true if
   * stored. See {@link OperationUpdate#definitive()} for who may store it.
   */
  boolean store(Connection c, OperationUpdate update) throws SQLException;

  /**
   * Claims up to {@code limit} due operations of {@code provider}, oldest first, skipping rows
   * another transaction has locked: PENDING or UNKNOWN ones whose next attempt is due, and
   * IN_FLIGHT ones whose lease ran out. Each moves to IN_FLIGHT for the lease's owner as {@link
   * #claim} does, in this same transaction; returns each row as it was before the claim.
   */
  List<OperationRow> claimDue(Connection c, String provider, int limit, Lease lease)
      throws SQLException;

  /** Extends the lease; true if its owner still holds the operation IN_FLIGHT. */
  boolean renew(Connection c, String operationId, Lease lease) throws SQLException;

  /**
   * Puts back an operation claimed but never called as it was ({@code before}: state, owner, lease,
   * attempts, first attempt, update time), if {@code owner} still holds it IN_FLIGHT; true if it
   * did.
   */
  boolean release(Connection c, OperationRow before, String owner) throws SQLException;
}
