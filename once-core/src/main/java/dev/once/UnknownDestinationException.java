package dev.once;

import java.util.Set;

/** An event was published to a destination that was never declared. Nothing was written. */
public class UnknownDestinationException extends OnceException {
  private static final long serialVersionUID = 1L;
  private final String destination;

  public UnknownDestinationException(String destination, Set<String> declared) {
    super(
        "unknown destination '"
            + destination
            + "': declared destinations are "
            + declared
            + " (add it with Once.builder().destinations(...))");
    this.destination = destination;
  }

  public String destination() {
    return destination;
  }
}
