package dev.once.internal.operations;

import dev.once.LookupAnswer;
import dev.once.OperationResult;
import dev.once.OperationState;
import dev.once.OperationsConfig;
import dev.once.ReconcilePolicy;
import dev.once.internal.Listeners;
import java.time.Clock;
import java.time.Instant;

/**
 * Decides what to do with an operation an earlier attempt may have carried to the provider: ask the
 * provider first; if it cannot tell, call again with the same key only while the provider is known
 * to deduplicate it (idempotent, key inside its retention window); otherwise apply the configured
 * policy. Every decision is recorded on the operation before it is acted on.
 */
final class Reconciliation {
  private final OperationsConfig config;
  private final OperationStore store;
  private final Listeners listener;
  private final Clock clock;
  private final OperationRunner runner;

  Reconciliation(
      OperationsConfig config,
      OperationStore store,
      Listeners listener,
      Clock clock,
      OperationRunner runner) {
    this.config = config;
    this.store = store;
    this.listener = listener;
    this.clock = clock;
    this.runner = runner;
  }

  OperationResult reconcile(OperationResult op, String request, String owner) {
    LookupAnswer answer;
    try {
      answer = config.lookup().lookup(op.idempotencyKey(), op.operationId());
    } catch (Exception e) {
      listener.operationReconciled(op, null, "lookup failed; tried again later");
      return runner.unanswered(
          op,
          owner,
          OperationState.UNKNOWN,
          "lookup failed: " + OperationRunner.describe(e, request));
    }
    return switch (answer.kind()) {
      case FOUND -> found(op, owner, answer);
      case NOT_FOUND ->
          callAgain(
              op,
              request,
              owner,
              answer,
              false,
              "provider has no record of it: called again with the same key");
      case CANNOT_TELL -> cannotTell(op, request, owner, answer);
    };
  }

  private OperationResult found(OperationResult op, String owner, LookupAnswer answer) {
    String resolution = "provider has a record of it: stored as its result, not called again";
    store.resolve(op.operationId(), owner, resolution, clock.instant());
    listener.operationReconciled(op, answer, resolution);
    return runner.answered(op, owner, OperationState.SUCCEEDED, answer.result());
  }

  private OperationResult cannotTell(
      OperationResult op, String request, String owner, LookupAnswer answer) {
    String why = "provider cannot tell (" + answer.detail() + ")";
    if (config.idempotent() && !windowPassed(op)) {
      return callAgain(
          op,
          request,
          owner,
          answer,
          true,
          why + "; key inside the provider's window: called again with the same key");
    }
    String risk =
        config.idempotent()
            ? "the key is older than the provider's window (" + config.retention() + ")"
            : "the provider cannot deduplicate";
    if (config.policy() == ReconcilePolicy.PREFER_DUPLICATE) {
      return callAgain(
          op,
          request,
          owner,
          answer,
          true,
          why + " and " + risk + "; policy PREFER_DUPLICATE: called again");
    }
    String resolution = why + " and " + risk + "; policy PREFER_MISSED: not called again";
    store.resolve(op.operationId(), owner, resolution, clock.instant());
    listener.operationReconciled(op, answer, resolution);
    return runner.unanswered(op, owner, OperationState.ABANDONED, null);
  }

  private OperationResult callAgain(
      OperationResult op,
      String request,
      String owner,
      LookupAnswer answer,
      boolean stillUncertain,
      String resolution) {
    store.resolve(op.operationId(), owner, resolution, clock.instant());
    listener.operationReconciled(op, answer, resolution);
    OperationResult resolved = withResolution(op, resolution);
    return runner.attempt(resolved, request, owner, stillUncertain);
  }

  private boolean windowPassed(OperationResult op) {
    Instant first = op.firstAttemptAt();
    return first != null && clock.instant().isAfter(first.plus(config.retention()));
  }

  private static OperationResult withResolution(OperationResult v, String resolution) {
    return new OperationResult(
        v.operationId(),
        v.provider(),
        v.idempotencyKey(),
        v.state(),
        v.result(),
        v.error(),
        resolution,
        v.attempts(),
        v.createdAt(),
        v.firstAttemptAt(),
        v.updatedAt());
  }
}
