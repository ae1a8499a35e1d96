package dev.once.internal.operations;

import dev.once.OperationResult;
import dev.once.OperationState;
import dev.once.OperationsConfig;
import dev.once.ProviderRejectedException;
import dev.once.Redaction;
import dev.once.RequestNotSentException;
import dev.once.Tracing;
import dev.once.internal.Listeners;
import dev.once.jdbc.OperationRow;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;

/**
 * Takes an operation this caller has just claimed (its key committed, its lease held, no
 * transaction open) to its next stored state: reconcile first if an earlier attempt may have
 * reached the provider, then call with the stored key, then store the answer.
 */
final class OperationRunner {
  private final OperationsConfig config;
  private final OperationStore store;
  private final Listeners listener;
  private final Clock clock;
  private final Tracing tracing;
  private final Reconciliation reconciliation;

  OperationRunner(OperationsConfig config, OperationStore store, Listeners listener, Clock clock) {
    this(config, store, listener, clock, Tracing.NONE);
  }

  OperationRunner(
      OperationsConfig config,
      OperationStore store,
      Listeners listener,
      Clock clock,
      Tracing tracing) {
    this.tracing = tracing;
    this.config = config;
    this.store = store;
    this.listener = listener;
    this.clock = clock;
    this.reconciliation = new Reconciliation(config, store, listener, clock, this);
  }

  /**
   * {@code before} is the row as it was when claimed. An {@code Error} thrown in this process while
   * it runs (a crash the process lives through) hands the operation back at once, with its retry
   * delay, instead of leaving it held until the lease runs out: PENDING if the provider cannot have
   * been called yet, else UNKNOWN (reconciled next time); then the {@code Error} goes on.
   */
  OperationResult run(OperationRow before, String owner) {
    OperationResult held = held(before.view());
    boolean uncertain =
        before.state() == OperationState.UNKNOWN || before.state() == OperationState.IN_FLIGHT;
    if (!uncertain) {
      try {
        listener.operationKeyStored(held);
      } catch (Error e) {
        throw handedBack(held, before.request(), owner, OperationState.PENDING, e);
      }
    }
    try {
      return uncertain
          ? reconciliation.reconcile(held, before.request(), owner)
          : call(held, before.request(), owner, false);
    } catch (Error e) {
      throw handedBack(held, before.request(), owner, OperationState.UNKNOWN, e);
    }
  }

  /**
   * Stores {@code op} back as {@code state} with its retry delay, if {@code owner} still holds it
   * (after its answer was stored nothing changes); returns {@code crash} to be thrown on. A
   * hand-back that fails leaves the operation to its lease, as a crash of the process would.
   */
  private Error handedBack(
      OperationResult op, String request, String owner, OperationState state, Error crash) {
    try {
      Instant now = clock.instant();
      store.store(
          op.operationId(),
          owner,
          state,
          null,
          "crashed (an Error in this process): " + describe(crash, request),
          now.plus(config.backoff().delay(op.attempts())),
          false,
          now);
    } catch (RuntimeException | Error e) {
      crash.addSuppressed(e);
    }
    return crash;
  }

  /** Calls the provider with the stored key. {@code uncertain}: an earlier call may have landed. */
  OperationResult attempt(OperationResult op, String request, String owner, boolean uncertain) {
    listener.operationKeyStored(op);
    return call(op, request, owner, uncertain);
  }

  private OperationResult call(
      OperationResult op, String request, String owner, boolean uncertain) {
    String response;
    Tracing.Span span = tracing.operation(op);
    try (Tracing.Scope scope = span.open()) {
      response = config.call().call(op.idempotencyKey(), request);
    } catch (ProviderRejectedException e) {
      span.error(e);
      span.end();
      String refusal = e.response() != null ? e.response() : e.getMessage();
      return answered(op, owner, OperationState.FAILED, refusal);
    } catch (RequestNotSentException e) {
      span.error(e);
      span.end();
      OperationState back = uncertain ? OperationState.UNKNOWN : OperationState.PENDING;
      return unanswered(op, owner, back, "not sent: " + describe(e, request));
    } catch (Exception e) {
      span.error(e);
      span.end();
      return unanswered(op, owner, OperationState.UNKNOWN, "no answer: " + describe(e, request));
    }
    span.end();
    return answered(op, owner, OperationState.SUCCEEDED, response);
  }

  OperationResult answered(OperationResult op, String owner, OperationState state, String result) {
    listener.operationAnswered(op, state);
    store.store(op.operationId(), owner, state, result, null, null, true, clock.instant());
    return stored(op.operationId());
  }

  OperationResult unanswered(OperationResult op, String owner, OperationState state, String error) {
    Instant now = clock.instant();
    Instant next = state.isFinal() ? null : now.plus(config.backoff().delay(op.attempts()));
    store.store(op.operationId(), owner, state, null, error, next, false, now);
    return stored(op.operationId());
  }

  private OperationResult stored(String operationId) {
    OperationResult now = store.find(operationId).orElseThrow().view();
    listener.operationStored(now);
    return now;
  }

  private OperationResult held(OperationResult v) {
    Instant now = clock.instant();
    return new OperationResult(
        v.operationId(),
        v.provider(),
        v.idempotencyKey(),
        OperationState.IN_FLIGHT,
        null,
        v.error(),
        v.resolution(),
        v.attempts() + 1,
        v.createdAt(),
        v.firstAttemptAt() == null ? now : v.firstAttemptAt(),
        now);
  }

  /**
   * {@code e} as the operation's {@code last_error}: the class and the message (a provider's error
   * body is often in it), cut to 2 KiB, then scrubbed of the request's values, then cut to 1000
   * characters: a body that echoes the request shows {@code ***} where its values were.
   */
  static String describe(Throwable e, String request) {
    String text = e.getClass().getName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    String capped = text.length() > MAX_BODY ? text.substring(0, MAX_BODY) + "…" : text;
    String scrubbed =
        request == null
            ? capped
            : Redaction.scrub(capped, request.getBytes(StandardCharsets.UTF_8));
    return scrubbed.length() > 1000 ? scrubbed.substring(0, 1000) + "…" : scrubbed;
  }

  /** The most of an error text (with a provider's body) read before scrubbing. */
  static final int MAX_BODY = 2048;
}
