package dev.once;

/**
 * Performs due operations of one provider: PENDING ones recorded by {@link Operations#request},
 * UNKNOWN ones whose retry time came, and IN_FLIGHT ones whose caller's lease ran out (it crashed).
 * For every uncertain one it asks the provider ({@link ProviderLookup}) before any new call, and
 * applies the {@link ReconcilePolicy} when the provider cannot tell. Any number may run, in any
 * number of processes: each operation is taken by one caller at a time through its lease.
 */
public interface Reconciler extends AutoCloseable {

  /** Works through one batch of due operations; returns how many it took. */
  int runOnce();

  /** Starts a background thread running batches every reconcile interval until {@link #close()}. */
  Reconciler start();

  @Override
  void close();
}
