package dev.once.internal.relay;

/**
 * How many messages of a relay's batch were lost on their way to the broker, and the first reason.
 */
record Lost(int count, String reason) {
  static final Lost NONE = new Lost(0, null);
}
