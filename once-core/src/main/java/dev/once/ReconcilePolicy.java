package dev.once;

/**
 * What to do when an operation's outcome is unknown and the provider cannot tell whether it acted
 * (no lookup, no idempotency, or the key is older than the provider's retention window). There is
 * no safe choice then, only a chosen risk; the choice is recorded on the operation.
 */
public enum ReconcilePolicy {
  /** Do not call again: the operation becomes ABANDONED. Risk: the action never happened. */
  PREFER_MISSED,
  /** Call again: the operation goes on. Risk: the action happens twice. */
  PREFER_DUPLICATE
}
