package dev.once.internal.operations;

import dev.once.Reconciler;
import dev.once.internal.EngineThread;
import dev.once.internal.OnceImpl;
import dev.once.internal.Pause;
import dev.once.internal.PoolNeeds;
import dev.once.jdbc.OperationRow;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Takes due operations in batches no other reconciler can also take, and runs them. */
final class ReconcilerImpl implements Reconciler {
  private static final Logger log = LoggerFactory.getLogger(ReconcilerImpl.class);
  private final OnceImpl once;
  private final OperationsImpl operations;
  private final DueClaims claims;
  private final Clock clock;
  private final Duration lease;
  private final EngineThread thread;

  ReconcilerImpl(OnceImpl once, OperationsImpl operations) {
    this.once = once;
    this.operations = operations;
    this.claims = new DueClaims(once.dataSource(), once.dialect());
    this.clock = once.config().clock();
    this.lease = operations.config().lease();
    this.thread = new EngineThread("once-reconciler-" + operations.provider());
  }

  /**
   * Claims a batch in one statement (rows other reconcilers hold are skipped, not waited for), then
   * runs each claimed operation as a caller would. The claim holds for a lease and a tenth: an
   * operation started within that tenth has a full lease left, and is called without renewing it
   * (always the first of a batch); a later one is renewed first. Operations not started within half
   * a lease are put back untouched, so no claim that was never called outlives its lease.
   */
  @Override
  public int runOnce() {
    Instant now = clock.instant();
    String owner = operations.newOwner();
    Duration grace = lease.dividedBy(10);
    List<OperationRow> claimed =
        claims.claim(
            operations.provider(),
            owner,
            now,
            now.plus(lease).plus(grace),
            operations.config().reconcileBatchSize());
    Instant startBy = now.plus(lease.dividedBy(2));
    Instant fresh = now.plus(grace);
    int next = 0;
    try {
      while (next < claimed.size() && !clock.instant().isAfter(startBy)) {
        OperationRow before = claimed.get(next++);
        run(before, owner, now, fresh);
      }
    } catch (RuntimeException | Error e) { // an Error: the one that threw it was handed back
      releaseAfter(e, claimed.subList(next, claimed.size()), owner);
      throw e;
    }
    release(claimed.subList(next, claimed.size()), owner);
    return claimed.size();
  }

  /**
   * Runs one claimed operation with the same decision and runner as a direct caller; renewed first
   * unless started by {@code fresh}, when the claim's own lease has a full lease left.
   */
  private void run(OperationRow before, String owner, Instant claimedAt, Instant fresh) {
    if (OperationStore.decide(before, null, claimedAt) != OperationStore.ClaimKind.CLAIMED) {
      claims.release(before, owner); // the statement and the decision disagree: leave it as it was
      return;
    }
    Instant now = clock.instant();
    if (!now.isAfter(fresh) || claims.renew(before.id(), owner, now, now.plus(lease))) {
      operations.runner().run(before, owner);
    }
  }

  /** Releases what was not started after {@code failure}; a failed release leaves them leased. */
  private void releaseAfter(Throwable failure, List<OperationRow> unstarted, String owner) {
    try {
      release(unstarted, owner);
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  private void release(List<OperationRow> unstarted, String owner) {
    for (OperationRow before : unstarted) {
      claims.release(before, owner);
    }
  }

  @Override
  public Reconciler start() {
    if (thread.started()) {
      return this;
    }
    once.starting(this, new PoolNeeds.Need("a reconciler", 1, 0, 0));
    if (thread.start(this::loop)) {
      once.started(this);
    }
    return this;
  }

  private void loop() {
    Duration interval = operations.config().reconcileInterval();
    while (thread.running()) {
      try {
        if (runOnce() == 0) {
          Thread.sleep(interval.toMillis());
        }
      } catch (InterruptedException e) {
        break;
      } catch (Throwable e) { // Error = crash mid-operation: its lease runs out, it is taken again
        if (!thread.running()) {
          break;
        }
        log.warn("reconciler {} run failed: {}", operations.provider(), e.toString());
        Pause.sleep(interval);
      }
    }
  }

  @Override
  public void close() {
    thread.stop();
    once.stopped(this);
  }
}
