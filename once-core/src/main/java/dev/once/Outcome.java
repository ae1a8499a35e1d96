package dev.once;

/** What handling one delivery came to. */
public enum Outcome {
  /** This delivery's transaction inserted the marker, ran the handler and committed. */
  PROCESSED,
  /** The marker was already there: the event was processed before; the handler did not run. */
  DUPLICATE,
  /** The event is older than state already applied; recorded, not applied. */
  STALE,
  /** The handler failed; the transaction rolled back and the delivery will come again. */
  RETRY,
  /** Retries are exhausted; the delivery was dead-lettered and acknowledged. */
  DEAD
}
