package dev.once.app.proof;

/**
 * How far verify lets its producer go, so that every phase of kills has work in flight to crash:
 * the orders are cut in one share per phase plus one for the end; a phase's share is released when
 * it starts, and while it runs a starved phase (a child waited for its window) pulls an eighth of a
 * share at a time, at most the next phase's share. Everything is released after the last phase.
 */
final class OrderRelease {
  private final long events;
  private final long share;
  private int phase;
  private long bumps;
  private long allowed;

  OrderRelease(long events, int phases) {
    this.events = events;
    this.share = (events + phases + 1) / (phases + 2);
  }

  /** Starts phase {@code index} (0-based). */
  void startPhase(int index) {
    phase = index;
    bumps = 0;
    raise(share * (phase + 1));
  }

  /** Traffic ran dry while a child waited for its window: release a little more. */
  void starved() {
    bumps++;
    raise(Math.min(share * (phase + 2), share * (phase + 1) + bumps * Math.max(1, share / 8)));
  }

  /** The phases are over: release everything. */
  void all() {
    raise(events);
  }

  /** The highest order id the producer may produce now. */
  long allowed() {
    return allowed;
  }

  private void raise(long upTo) {
    allowed = Math.max(allowed, Math.min(events, upTo));
  }
}
