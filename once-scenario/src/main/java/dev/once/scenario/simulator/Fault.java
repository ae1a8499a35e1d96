package dev.once.scenario.simulator;

/** What the simulator does wrong with one request, on purpose. */
public enum Fault {
  /** Answers normally. */
  NONE,
  /** Acts (charges, sends) and then drops the connection without an answer. */
  DROP_RESPONSE,
  /** Works slowly: holds the key in progress for the configured delay before acting. */
  SLOW,
  /** Acts and then holds the answer back for the configured delay (callers time out). */
  STALL,
  /** Answers 503 without acting. */
  SERVER_ERROR
}
