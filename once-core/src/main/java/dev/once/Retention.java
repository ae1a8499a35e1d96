package dev.once;

/**
 * Deletes old markers, sent outbox rows, resolved dead letters and forgotten attempt and suspect
 * rows (counted together as {@code attempts}) as its {@link RetentionPolicy} says: in small
 * batches, each its own short transaction, so no long lock is held; by one instance per schema at a
 * time (an advisory lock; the others skip the round).
 */
public interface Retention extends AutoCloseable {

  /** What one round deleted; {@code skipped} when another instance held the lock. */
  record Round(boolean skipped, long markers, long outbox, long deadLetters, long attempts) {
    public long total() {
      return markers + outbox + deadLetters + attempts;
    }
  }

  /** Runs one round now, on the caller's thread. */
  Round runOnce();

  /** Runs a round every {@link RetentionPolicy#interval()} on a background thread. */
  Retention start();

  @Override
  void close();
}
