package dev.once.scenario.simulator;

import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Which share of requests gets which {@link Fault}, drawn from a seeded random source so a run can
 * be repeated. Rates are independent shares of all requests; their sum must be at most 1.
 */
public final class FaultPlan {
  private final double drop;
  private final double slow;
  private final double stall;
  private final double error;
  private final SplittableRandom random;
  private final Map<Fault, Long> drawn = new EnumMap<>(Fault.class);

  public FaultPlan(double drop, double slow, double stall, double error, long seed) {
    if (drop < 0 || slow < 0 || stall < 0 || error < 0 || drop + slow + stall + error > 1) {
      throw new IllegalArgumentException(
          "fault rates must be >= 0 and sum to at most 1, were drop="
              + drop
              + " slow="
              + slow
              + " stall="
              + stall
              + " error="
              + error);
    }
    this.drop = drop;
    this.slow = slow;
    this.stall = stall;
    this.error = error;
    this.random = new SplittableRandom(seed);
  }

  public static FaultPlan none() {
    return new FaultPlan(0, 0, 0, 0, 0);
  }

  public synchronized Fault next() {
    Fault f = draw(random.nextDouble());
    drawn.merge(f, 1L, Long::sum);
    return f;
  }

  /** How often each fault was drawn so far (faults never drawn are absent). */
  public synchronized Map<Fault, Long> drawn() {
    return new EnumMap<>(drawn);
  }

  private Fault draw(double u) {
    if (u < drop) {
      return Fault.DROP_RESPONSE;
    }
    if (u < drop + slow) {
      return Fault.SLOW;
    }
    if (u < drop + slow + stall) {
      return Fault.STALL;
    }
    return u < drop + slow + stall + error ? Fault.SERVER_ERROR : Fault.NONE;
  }
}
