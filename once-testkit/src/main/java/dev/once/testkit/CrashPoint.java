package dev.once.testkit;

/** The named crash windows of the pipeline, and what a crash there must lead to. */
public enum CrashPoint {
  /** No business change, no outbox row, nothing published. */
  PRODUCER_BEFORE_COMMIT("producer.before-commit"),
  /** Redelivery; processed once. */
  CONSUMER_BEFORE_TRANSACTION("consumer.before-transaction"),
  /** Rollback; redelivery; processed once. */
  CONSUMER_AFTER_MARKER("consumer.after-marker"),
  /** Rollback; redelivery; processed once. */
  CONSUMER_AFTER_EFFECT("consumer.after-effect-before-commit"),
  /** Redelivery; outcome DUPLICATE; no second effect. */
  CONSUMER_AFTER_COMMIT("consumer.after-commit-before-ack"),
  /** Republished with the same event id; consumers see DUPLICATE. */
  RELAY_AFTER_PUBLISH("relay.after-publish-before-mark-sent"),
  /** The next caller (after the lease) calls with the same key. */
  OPERATION_KEY_STORED_BEFORE_CALL("operation.key-stored-before-call"),
  /** The retry with the same key gets the first result (or the lookup finds it); one action. */
  OPERATION_ACCEPTED_BEFORE_RESULT_STORED("operation.provider-accepted-before-result-stored"),
  // last, so that the ordinals (and seeded random crash plans) of the windows above stay as they
  // were
  /** API, request key held, before commit: nothing stored; the client's retry runs once. */
  API_BEFORE_COMMIT("api.before-commit"),
  /** API, after commit, before the response is written: the retry gets the stored response. */
  API_AFTER_COMMIT("api.after-commit-before-response");

  private final String label;

  CrashPoint(String label) {
    this.label = label;
  }

  /** The window's name in reports and JSON. */
  public String label() {
    return label;
  }
}
