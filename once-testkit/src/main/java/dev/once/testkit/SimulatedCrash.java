package dev.once.testkit;

/**
 * Thrown by {@link FaultInjector} to stop a worker at a crash window. An {@link Error}, so Once
 * treats it like the death of the worker: the transaction is abandoned and nothing is acknowledged.
 */
public final class SimulatedCrash extends Error {
  private static final long serialVersionUID = 1L;
  private final CrashPoint point;

  public SimulatedCrash(CrashPoint point, String eventId) {
    super("simulated crash at " + point.label() + " (event " + eventId + ")", null, false, false);
    this.point = point;
  }

  public CrashPoint point() {
    return point;
  }
}
