package dev.once.spi;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;

/**
 * Runs Once's own transactions: a producer's {@code once.inTransaction} and a consumer's batch
 * (markers, handlers, outgoing events). The default opens a connection of the {@code DataSource},
 * commits and closes it; a framework integration (Spring's transaction manager) runs the same work
 * in the transaction it manages, so that everything the application writes on that transaction
 * commits or rolls back with Once's rows.
 */
public interface TransactionRunner {

  /**
   * Runs {@code work} in a transaction and gives it the transaction's connection (auto-commit off;
   * the work neither commits nor closes it). Commits when the work returns and rolls back when it
   * throws, rethrowing what it threw. {@code afterCommit} runs once the transaction has committed
   * (for a joined outer transaction: when that one commits; never when it rolls back).
   *
   * <p>A failed commit is rethrown as the {@link java.sql.SQLException} that caused it where there
   * is one, so that the store can tell a transient conflict from a lasting failure.
   */
  <T> T inTransaction(Work<T> work, Runnable afterCommit) throws Exception;

  /**
   * Whether rolling the connection back (to a savepoint, or whole) undoes everything a failed
   * handler did. {@code false} when a framework keeps state beside the connection (a JPA
   * persistence context that would still be flushed at commit): a failing handler then makes the
   * whole batch transaction roll back through this runner, and the batch runs again with that
   * delivery recorded as failed instead of handled.
   */
  default boolean undoesOnConnection() {
    return true;
  }

  /**
   * Marks the current state of the transaction {@code connection} belongs to, so that one failing
   * handler's work can be undone alone while its batch-mates commit: the core takes a mark before
   * each handler of a batch that had a failure (never in a batch that has not). The default is a
   * JDBC savepoint; a runner that keeps state beside the connection returns a mark that undoes that
   * state too (Spring: the savepoint of its {@code TransactionStatus}, and JPA's persistence
   * context cleared). Called only when {@link #undoesToMark()}.
   */
  default Mark mark(Connection connection) throws SQLException {
    Savepoint savepoint = connection.setSavepoint();
    return () -> {
      connection.rollback(savepoint);
      return true;
    };
  }

  /**
   * Whether {@link #mark} can undo one handler alone. {@code false}: a failing handler rolls back
   * its whole batch, and the batch runs again without that delivery, once per failure.
   */
  default boolean undoesToMark() {
    return undoesOnConnection();
  }

  /** A point in a transaction to go back to: see {@link #mark}. */
  @FunctionalInterface
  interface Mark {
    /**
     * Undoes everything done since the mark. Returns false when the transaction cannot go on after
     * all (a framework marked it rollback-only): the core then rolls the whole batch back and runs
     * it again without that delivery, as without marks.
     */
    boolean rollback() throws SQLException;
  }

  /** Work on the connection of one transaction. */
  @FunctionalInterface
  interface Work<T> {
    T run(Connection connection) throws Exception;
  }
}
