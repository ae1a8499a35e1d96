package dev.once.internal.operations;

import dev.once.StoreException;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.Lease;
import dev.once.jdbc.OperationRow;
import dev.once.jdbc.OperationsDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;

/**
 * The JDBC side of reconcilers: one statement takes a batch of due operations that no other
 * reconciler has locked and moves them to IN_FLIGHT for one owner, committed before any call.
 */
final class DueClaims {
  private final DataSource dataSource;
  private final OperationsDialect ops;

  DueClaims(DataSource dataSource, Dialect dialect) {
    this.dataSource = dataSource;
    this.ops = dialect.operations();
  }

  /** Up to {@code limit} due operations now held by {@code owner}, each as it was before. */
  List<OperationRow> claim(
      String provider, String owner, Instant now, Instant leaseUntil, int limit) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      return ops.claimDue(c, provider, limit, new Lease(owner, leaseUntil, now));
    } catch (SQLException e) {
      throw new StoreException("claim due operations of " + provider, e);
    }
  }

  /** A fresh lease just before the call; false if {@code owner} no longer holds it. */
  boolean renew(String operationId, String owner, Instant now, Instant leaseUntil) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      return ops.renew(c, operationId, new Lease(owner, leaseUntil, now));
    } catch (SQLException e) {
      throw new StoreException("renew lease of " + operationId, e);
    }
  }

  /** Puts back an operation claimed but never called, as it was, if {@code owner} holds it. */
  void release(OperationRow before, String owner) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      ops.release(c, before, owner);
    } catch (SQLException e) {
      throw new StoreException("release operation " + before.id(), e);
    }
  }
}
