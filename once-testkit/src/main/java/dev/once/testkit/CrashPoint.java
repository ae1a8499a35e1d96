package dev.once.testkit;

import java.util.Locale;

/**
 * The named crash windows of the pipeline, and what a crash there must lead to. A window's {@link
 * #label()} is its name in lower case, the stage before the dot: {@code
 * CONSUMER_AFTER_COMMIT_BEFORE_ACK} is {@code consumer.after-commit-before-ack}.
 */
public enum CrashPoint {
  /** No business change, no outbox row, nothing published. */
  PRODUCER_BEFORE_COMMIT,
  /** Redelivery; processed once. */
  CONSUMER_BEFORE_TRANSACTION,
  /** Rollback; redelivery; processed once. */
  CONSUMER_AFTER_MARKER,
  /** Rollback; redelivery; processed once. */
  CONSUMER_AFTER_EFFECT_BEFORE_COMMIT,
  /** Redelivery; outcome DUPLICATE; no second effect. */
  CONSUMER_AFTER_COMMIT_BEFORE_ACK,
  /** Republished with the same event id; consumers see DUPLICATE. */
  RELAY_AFTER_PUBLISH_BEFORE_MARK_SENT,
  /** The next caller (after the lease) calls with the same key. */
  OPERATION_KEY_STORED_BEFORE_CALL,
  /** The retry with the same key gets the first result (or the lookup finds it); one action. */
  OPERATION_PROVIDER_ACCEPTED_BEFORE_RESULT_STORED,
  // last, so that the ordinals (and seeded random crash plans) of the windows above stay as they
  // were
  /** API, request key held, before commit: nothing stored; the client's retry runs once. */
  API_BEFORE_COMMIT,
  /** API, after commit, before the response is written: the retry gets the stored response. */
  API_AFTER_COMMIT_BEFORE_RESPONSE;

  /** The window's name in reports and JSON, e.g. {@code relay.after-publish-before-mark-sent}. */
  public String label() {
    String n = name().toLowerCase(Locale.ROOT);
    int stage = n.indexOf('_');
    return n.substring(0, stage) + "." + n.substring(stage + 1).replace('_', '-');
  }
}
