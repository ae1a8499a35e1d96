package dev.once.internal;

/**
 * How an engine that runs threads of its own (a relay, retention, a reconciler, request keys'
 * sweeper) tells its {@code Once} that it starts and stops: the pool is checked before it starts,
 * and a started engine is closed with its {@code Once}.
 */
public interface EngineLifecycle {
  /**
   * Before its threads start: counts what {@code engine} takes of the pool, and throws if the pool
   * is too small for every engine running (see {@link PoolNeeds}).
   */
  void starting(Object engine, PoolNeeds.Need need);

  /** Its threads run: it is closed with its {@code Once}. */
  void started(AutoCloseable engine);

  /** It stopped: what it took of the pool is free again. */
  void stopped(Object engine);
}
