package dev.once;

import java.util.Set;

/** An event was published to a destination that was never declared. Nothing was written. */
public class UnknownDestinationException extends OnceException {
  private static final long serialVersionUID = 1L;
  private final String destination;
  private final Set<String> declared;

  public UnknownDestinationException(String destination, Set<String> declared) {
    this(destination, declared, "add it with Once.builder().destinations(...)");
  }

  /**
   * @param howToDeclare the fix where this instance was configured, e.g. {@code add it to
   *     once.destinations} in Spring Boot
   */
  public UnknownDestinationException(
      String destination, Set<String> declared, String howToDeclare) {
    super(
        "unknown destination '"
            + destination
            + "': declared destinations are "
            + declared
            + " ("
            + howToDeclare
            + ")");
    this.destination = destination;
    this.declared = Set.copyOf(declared);
  }

  public String destination() {
    return destination;
  }

  /** The destinations that were declared. */
  public Set<String> declared() {
    return declared;
  }
}
