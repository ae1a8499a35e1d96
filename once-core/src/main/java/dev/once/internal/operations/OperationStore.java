package dev.once.internal.operations;

import dev.once.OperationConflictException;
import dev.once.OperationState;
import dev.once.StoreException;
import dev.once.internal.Jdbc;
import dev.once.internal.OnceImpl;
import dev.once.jdbc.Dialect;
import dev.once.jdbc.Lease;
import dev.once.jdbc.OperationRow;
import dev.once.jdbc.OperationUpdate;
import dev.once.jdbc.OperationsDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The JDBC side of operations. Every method is one short transaction of its own (or runs in the
 * caller's); none is ever open while the provider is called.
 */
final class OperationStore {
  private final DataSource dataSource;
  private final OperationsDialect ops;

  /** What a claim came to: this caller holds it, it is final, another caller holds it, or gone. */
  enum ClaimKind {
    CLAIMED,
    FINAL,
    BUSY,
    ABSENT
  }

  /** {@code before} is the row as it was when locked, before this claim changed it. */
  record Claim(ClaimKind kind, OperationRow before, String owner) {}

  OperationStore(DataSource dataSource, Dialect dialect) {
    this.dataSource = dataSource;
    this.ops = dialect.operations();
  }

  /** In the caller's transaction: true if inserted, false if known with the same request. */
  boolean insert(Connection c, NewOperation op, Instant now) throws SQLException {
    if (ops.insert(c, op.row(now))) {
      return true;
    }
    OperationRow row = ops.find(c, op.operationId(), false);
    checkSame(row, op);
    return false;
  }

  /**
   * One short transaction: stores {@code op} if new (its key commits before any call), locks the
   * row, and takes it for {@code owner} unless it is final or another caller's lease is live.
   */
  Claim claim(String operationId, NewOperation op, String owner, Instant now, Instant leaseUntil) {
    Connection c = null;
    try {
      c = dataSource.getConnection();
      c.setAutoCommit(false);
      if (op != null) {
        ops.insert(c, op.row(now));
      }
      OperationRow row = ops.find(c, operationId, true);
      Claim claim = new Claim(decide(row, op, now), row, owner);
      if (claim.kind() == ClaimKind.CLAIMED) {
        ops.claim(c, operationId, new Lease(owner, leaseUntil, now));
      }
      c.commit();
      return claim;
    } catch (SQLException e) {
      Jdbc.rollbackQuietly(c);
      throw new StoreException("claim operation " + operationId, e);
    } catch (RuntimeException | Error e) {
      Jdbc.rollbackQuietly(c);
      throw e;
    } finally {
      OnceImpl.closeQuietly(c);
    }
  }

  /** What a claim of {@code row} comes to at {@code now}; {@code op} is checked if not null. */
  static ClaimKind decide(OperationRow row, NewOperation op, Instant now) {
    if (row == null) {
      return ClaimKind.ABSENT;
    }
    if (op != null) {
      checkSame(row, op);
    }
    if (row.state().isFinal()) {
      return ClaimKind.FINAL;
    }
    if (row.state() == OperationState.IN_FLIGHT && row.leaseUntil().isAfter(now)) {
      return ClaimKind.BUSY;
    }
    return ClaimKind.CLAIMED;
  }

  private static void checkSame(OperationRow row, NewOperation op) {
    if (!row.view().provider().equals(op.provider())) {
      throw new OperationConflictException(
          op.operationId(), "provider", row.view().provider(), op.provider());
    }
    if (!row.fingerprint().equals(op.fingerprint())) {
      throw new OperationConflictException(
          op.operationId(), "request", row.fingerprint(), op.fingerprint());
    }
  }

  Optional<OperationRow> find(String operationId) {
    try (Connection c = dataSource.getConnection()) {
      return Optional.ofNullable(ops.find(c, operationId, false));
    } catch (SQLException e) {
      throw new StoreException("read operation " + operationId, e);
    }
  }

  /** Records how reconciliation decided, before acting on it. True if {@code owner} holds it. */
  boolean resolve(String operationId, String owner, String resolution, Instant now) {
    return autoCommit(
        "record resolution of " + operationId,
        c -> ops.recordResolution(c, operationId, owner, resolution, now));
  }

  /** Stores what an attempt came to; see {@link OperationsDialect#store}. */
  boolean store(
      String operationId,
      String owner,
      OperationState state,
      String result,
      String error,
      Instant nextAttemptAt,
      boolean definitive,
      Instant now) {
    OperationUpdate update =
        new OperationUpdate(
            operationId, owner, state, result, error, nextAttemptAt, definitive, now);
    return autoCommit("store the attempt of " + operationId, c -> ops.store(c, update));
  }

  /** One auto-committed statement. */
  @FunctionalInterface
  private interface Statement {
    boolean run(Connection c) throws SQLException;
  }

  private boolean autoCommit(String action, Statement statement) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      return statement.run(c);
    } catch (SQLException e) {
      throw new StoreException(action, e);
    }
  }
}
