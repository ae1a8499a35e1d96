package dev.once;

/**
 * Receives deliveries of one destination for one consumer id and processes each at most once per
 * event id: marker, handler changes and outgoing events commit in one transaction, and the delivery
 * is acknowledged only after that commit.
 */
public interface Consumer extends AutoCloseable {

  String consumerId();

  /**
   * Polls one batch (waiting up to the poll timeout), processes it in one transaction and
   * acknowledges it. Returns how many deliveries were handled. Runs on the caller's thread.
   */
  int runOnce();

  /** Starts the configured number of worker threads. */
  Consumer start();

  @Override
  void close();
}
