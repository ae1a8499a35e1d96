package dev.once.spring;

import dev.once.OnceException;
import dev.once.spi.TransactionRunner;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.NestedTransactionNotSupportedException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.ResourceHolderSupport;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.ClassUtils;

/**
 * Runs Once's transactions on the application's {@link PlatformTransactionManager} ({@code
 * DataSourceTransactionManager}, {@code JdbcTransactionManager} or {@code JpaTransactionManager}):
 * a consumer's batch begins a Spring transaction, and Once's rows (markers, outgoing events, dead
 * letters) go on its connection, so that whatever a handler writes through {@code JdbcTemplate},
 * {@code JdbcClient} or a JPA repository commits or rolls back with them. A producer's {@code
 * once.inTransaction} (and {@link OncePublisher}) joins the caller's transaction when there is one,
 * whichever transaction manager began it, provided it holds a connection of Once's data source.
 *
 * <p>A failing handler is undone alone, as on Once's own connections: in a batch that had a
 * failure, each handler runs after a savepoint ({@link #mark}) — the {@code TransactionStatus}'s
 * own where the transaction manager offers one ({@code DataSourceTransactionManager}, {@code
 * JdbcTransactionManager}), else one on the transaction's connection ({@code JpaTransactionManager}
 * with Hibernate, whose dialect offers none) — and a failure rolls back to it, clears JPA's
 * persistence context (flushed before the savepoint, so only the failed handler's state goes) and
 * lifts the rollback-only mark a proxied {@code @Transactional} bean left; its batch-mates commit.
 * Where the transaction cannot go on (JPA's own transaction marked rollback-only, as Hibernate does
 * on a {@code PersistenceException}), or with another transaction manager (JTA), the whole batch
 * rolls back and runs again without that delivery. A bare rollback on the connection would leave
 * the persistence context to be flushed at commit ({@link #undoesOnConnection()} is false).
 */
public final class SpringTransactions implements TransactionRunner {
  private static final Logger log = LoggerFactory.getLogger(SpringTransactions.class);
  private static final ThreadLocal<TransactionStatus> CURRENT = new ThreadLocal<>();

  private final PlatformTransactionManager transactionManager;
  private final DataSource dataSource;
  private final TransactionTemplate template;
  private final boolean marks;

  public SpringTransactions(PlatformTransactionManager transactionManager, DataSource dataSource) {
    this.transactionManager = transactionManager;
    this.dataSource = dataSource;
    this.template = new TransactionTemplate(transactionManager);
    this.marks = supportsMarks(transactionManager);
    template.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRED);
  }

  @Override
  public <T> T inTransaction(Work<T> work, Runnable afterCommit) throws Exception {
    if (TransactionSynchronizationManager.isActualTransactionActive()) {
      return joined(work, afterCommit);
    }
    boolean[] registered = {false};
    T result;
    try {
      result =
          template.execute(
              status -> {
                TransactionStatus outer = CURRENT.get();
                CURRENT.set(status);
                try {
                  T r = work.run(connection());
                  registered[0] = afterCommit(afterCommit);
                  return r;
                } catch (RuntimeException e) {
                  throw new FromWork(e);
                } catch (Exception e) {
                  throw new FromWork(e);
                } finally {
                  CURRENT.set(outer);
                }
              });
    } catch (FromWork e) {
      throw e.cause;
    } catch (RuntimeException e) { // from the transaction manager: begin, commit or rollback
      SQLException sql = sqlCause(e);
      throw sql != null ? sql : e;
    }
    if (!registered[0]) {
      afterCommit.run();
    }
    return result;
  }

  /**
   * Runs in the caller's transaction, whichever transaction manager began it, as long as it holds a
   * connection of Once's data source; the caller commits or rolls back.
   */
  private <T> T joined(Work<T> work, Runnable afterCommit) throws Exception {
    T result = work.run(connection());
    if (!afterCommit(afterCommit)) {
      afterCommit.run();
    }
    return result;
  }

  @Override
  public boolean undoesOnConnection() {
    return false;
  }

  @Override
  public boolean undoesToMark() {
    return marks;
  }

  /**
   * A savepoint in the batch's transaction: its {@code TransactionStatus}'s if the transaction
   * manager offers one, else one on its connection. Pending JPA changes are flushed first, so that
   * undoing one handler (which clears the persistence context) loses nothing of the others.
   */
  @Override
  public Mark mark(Connection connection) throws SQLException {
    TransactionStatus status = CURRENT.get();
    if (status == null) {
      throw new IllegalStateException(
          "a savepoint outside a transaction run by SpringTransactions");
    }
    status.flush();
    Object savepoint;
    try {
      savepoint = status.createSavepoint();
    } catch (NestedTransactionNotSupportedException e) { // JPA with Hibernate: no savepoints
      java.sql.Savepoint onConnection = connection.setSavepoint();
      return () -> {
        Jpa.clear();
        connection.rollback(onConnection);
        resetRollbackOnly();
        return Jpa.canGoOn();
      };
    }
    return () -> {
      Jpa.clear();
      status.rollbackToSavepoint(savepoint); // lifts the connection's rollback-only mark too
      resetRollbackOnly();
      return Jpa.canGoOn();
    };
  }

  /** Lifts what a participating {@code @Transactional} that threw left on the resources. */
  private static void resetRollbackOnly() {
    for (Object resource : TransactionSynchronizationManager.getResourceMap().values()) {
      if (resource instanceof ResourceHolderSupport holder) {
        holder.resetRollbackOnly();
      }
    }
  }

  private static boolean supportsMarks(PlatformTransactionManager tm) {
    return tm instanceof DataSourceTransactionManager || (JPA && Jpa.isJpa(tm));
  }

  private static final boolean JPA =
      ClassUtils.isPresent(
          "org.springframework.orm.jpa.JpaTransactionManager",
          SpringTransactions.class.getClassLoader());

  /** What JPA holds beside the connection; loaded only when spring-orm is there. */
  private static final class Jpa {
    static boolean isJpa(PlatformTransactionManager tm) {
      return tm instanceof org.springframework.orm.jpa.JpaTransactionManager;
    }

    /** Drops the failed handler's managed entities and pending changes. */
    static void clear() {
      if (!JPA) {
        return;
      }
      for (Object resource : TransactionSynchronizationManager.getResourceMap().values()) {
        if (resource instanceof org.springframework.orm.jpa.EntityManagerHolder holder) {
          holder.getEntityManager().clear();
        }
      }
    }

    /** False when JPA's own transaction is marked rollback-only: its commit would fail. */
    static boolean canGoOn() {
      if (!JPA) {
        return true;
      }
      for (Object resource : TransactionSynchronizationManager.getResourceMap().values()) {
        if (resource instanceof org.springframework.orm.jpa.EntityManagerHolder holder) {
          jakarta.persistence.EntityTransaction tx = holder.getEntityManager().getTransaction();
          if (tx.isActive() && tx.getRollbackOnly()) {
            return false;
          }
        }
      }
      return true;
    }
  }

  /** The transaction manager this runner uses. */
  public PlatformTransactionManager transactionManager() {
    return transactionManager;
  }

  /**
   * Writes what the current transaction holds beside the connection (JPA's pending changes) to the
   * database now, so that a handler's constraint violation fails that handler instead of the whole
   * batch's commit. Does nothing outside a transaction run by this class.
   */
  static void flush() {
    TransactionStatus status = CURRENT.get();
    if (status != null) {
      status.flush();
    }
  }

  /** The connection of the current transaction; fails if the transaction is not on this pool. */
  private Connection connection() throws SQLException {
    Connection c = DataSourceUtils.getConnection(dataSource);
    if (c.getAutoCommit()) {
      DataSourceUtils.releaseConnection(c, dataSource);
      throw new OnceException(
          "the current Spring transaction does not hold a connection of Once's DataSource"
              + " (transaction manager "
              + transactionManager.getClass().getSimpleName()
              + "): Once's rows would commit on their own. Give Once the DataSource that the"
              + " transaction manager manages");
    }
    // released by the transaction manager at the end of the transaction
    return c;
  }

  private static boolean afterCommit(Runnable action) {
    if (!TransactionSynchronizationManager.isSynchronizationActive()) {
      return false;
    }
    TransactionSynchronizationManager.registerSynchronization(
        new TransactionSynchronization() {
          @Override
          public void afterCommit() {
            try {
              action.run();
            } catch (RuntimeException e) {
              log.warn("once: after-commit action failed: {}", e.toString());
            }
          }
        });
    return true;
  }

  private static SQLException sqlCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql) {
        return sql;
      }
    }
    return null;
  }

  /** Carries what the work threw through the template, which rolls back on it. */
  private static final class FromWork extends RuntimeException {
    final Exception cause;

    FromWork(Exception cause) {
      super(null, null, false, false);
      this.cause = cause;
    }
  }
}
