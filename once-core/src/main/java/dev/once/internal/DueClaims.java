package dev.once.internal;

import dev.once.StoreException;
import dev.once.spi.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * The JDBC side of reconcilers: one statement takes a batch of due operations that no other
 * reconciler has locked and moves them to IN_FLIGHT for one owner, committed before any call.
 */
final class DueClaims {
  private final DataSource dataSource;
  private final Dialect dialect;

  DueClaims(DataSource dataSource, Dialect dialect) {
    this.dataSource = dataSource;
    this.dialect = dialect;
  }

  /** Up to {@code limit} due operations now held by {@code owner}, each as it was before. */
  List<OperationRow> claim(
      String provider, String owner, Instant now, Instant leaseUntil, int limit) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(dialect.claimDueOperations())) {
      c.setAutoCommit(true);
      Jdbc.bind(ps, provider, now, now, limit, owner, leaseUntil, now, now);
      List<OperationRow> before = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          before.add(OperationRow.read(rs));
        }
      }
      return before;
    } catch (SQLException e) {
      throw new StoreException("claim due operations of " + provider, e);
    }
  }

  /** A fresh lease just before the call; false if {@code owner} no longer holds it. */
  boolean renew(String operationId, String owner, Instant now, Instant leaseUntil) {
    return update(
            "renew lease of " + operationId,
            dialect.renewOperation(),
            leaseUntil,
            now,
            operationId,
            owner)
        == 1;
  }

  /** Puts back an operation claimed but never called, as it was, if {@code owner} holds it. */
  void release(OperationRow before, String owner) {
    update(
        "release operation " + before.id(),
        dialect.releaseOperation(),
        before.state().name(),
        before.owner(),
        before.leaseUntil(),
        before.view().attempts(),
        before.view().firstAttemptAt(),
        before.view().updatedAt(),
        before.id(),
        owner);
  }

  private int update(String action, String sql, Object... params) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      return Jdbc.update(c, sql, params);
    } catch (SQLException e) {
      throw new StoreException(action, e);
    }
  }
}
