package dev.once.internal.operations;

import dev.once.OperationResult;
import dev.once.Operations;
import dev.once.OperationsConfig;
import dev.once.Reconciler;
import dev.once.StoreException;
import dev.once.Tx;
import dev.once.internal.OnceImpl;
import dev.once.jdbc.OperationRow;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * One provider's operations. A call is: one short transaction that stores the key (if new) and
 * takes the operation with a lease; the remote call with no transaction open; one statement that
 * stores the answer. Callers that find another's live lease wait and read its outcome.
 */
public final class OperationsImpl implements Operations {
  private static final long MAX_PAUSE_MILLIS = 200;
  private final OnceImpl once;
  private final OperationsConfig config;
  private final OperationStore store;
  private final OperationRunner runner;
  private final Clock clock;

  public OperationsImpl(OnceImpl once, OperationsConfig config) {
    this.once = once;
    this.config = config;
    this.clock = once.config().clock();
    this.store = new OperationStore(once.dataSource(), once.dialect());
    this.runner = new OperationRunner(config, store, once.listener(), clock, once.tracing());
  }

  @Override
  public String provider() {
    return config.provider();
  }

  @Override
  public OperationResult call(String operationId, String request) {
    NewOperation op = NewOperation.of(config.provider(), operationId, request);
    long deadline = System.nanoTime() + config.maxWait().toNanos();
    long pause = 5;
    while (true) {
      OperationStore.Claim claim = claim(operationId, op);
      switch (claim.kind()) {
        case CLAIMED:
          return runner.run(claim.before(), claim.owner());
        case FINAL:
          return claim.before().view();
        case BUSY:
          if (System.nanoTime() > deadline) {
            return claim.before().view();
          }
          sleep(pause);
          pause = Math.min(MAX_PAUSE_MILLIS, pause * 2);
          break;
        default:
          throw new IllegalStateException("operation " + operationId + " vanished while claimed");
      }
    }
  }

  /** Claims for a fresh owner; {@code op} is stored first when not null. */
  OperationStore.Claim claim(String operationId, NewOperation op) {
    Instant now = clock.instant();
    return store.claim(operationId, op, newOwner(), now, now.plus(config.lease()));
  }

  /** A fresh owner: this process and a random part, so a lease names who holds it. */
  String newOwner() {
    return ProcessHandle.current().pid() + "/" + UUID.randomUUID();
  }

  OperationRunner runner() {
    return runner;
  }

  OperationStore store() {
    return store;
  }

  @Override
  public boolean request(Tx tx, String operationId, String request) {
    NewOperation op = NewOperation.of(config.provider(), operationId, request);
    try {
      return store.insert(tx.connection(), op, clock.instant());
    } catch (SQLException e) {
      throw new StoreException("record operation " + operationId, e);
    }
  }

  @Override
  public Optional<OperationResult> find(String operationId) {
    return store.find(operationId).map(OperationRow::view);
  }

  @Override
  public Reconciler newReconciler() {
    return new ReconcilerImpl(once, this);
  }

  @Override
  public OperationsConfig config() {
    return config;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new dev.once.OnceException("interrupted while waiting for another caller", e);
    }
  }
}
