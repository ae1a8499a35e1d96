package dev.once.internal.consumer;

import dev.once.spi.Delivery;
import java.util.List;

/**
 * What handling a batch came to, as the {@link Pipeline} hands it back to its worker.
 *
 * @param received deliveries polled (0 when the batch was one the worker had kept)
 * @param unsettled deliveries neither acknowledged nor handed back: after a failure that is not a
 *     crash, the worker may keep them on the same receiver and run them again (a database outage),
 *     or close the receiver, which hands them back
 * @param failure what ended the batch early: an {@link Error} (a crash of the worker: what it held
 *     was handed back already), a {@link RuntimeException} (the store or broker failed), or null
 */
record BatchOutcome(int received, List<Delivery> unsettled, Throwable failure) {
  static final BatchOutcome NONE = new BatchOutcome(0, List.of(), null);

  static BatchOutcome done(int received) {
    return new BatchOutcome(received, List.of(), null);
  }

  static BatchOutcome failed(Throwable failure, List<Delivery> unsettled) {
    return new BatchOutcome(0, List.copyOf(unsettled), failure);
  }

  /** This outcome of a batch of {@code polled} fresh from the receiver. */
  BatchOutcome polled(int polled) {
    return new BatchOutcome(polled, unsettled, failure);
  }

  /** The failure, to be thrown by a caller that runs one batch ({@code Consumer.runOnce}). */
  RuntimeException rethrow() {
    if (failure instanceof Error e) {
      throw e;
    }
    return (RuntimeException) failure;
  }
}
