package dev.once.rabbitmq;

import dev.once.OnceException;

/**
 * Declaring an exchange, a queue or a binding failed: typically the object exists with other
 * arguments (a classic queue where a quorum queue is wanted, another delivery limit) or the user
 * may not configure it.
 */
public class TopologyException extends OnceException {
  private static final long serialVersionUID = 1L;
  private final String name;

  public TopologyException(String name, String problem, Throwable cause) {
    super("RabbitMQ topology: " + name + " " + problem, cause);
    this.name = name;
  }

  /** The exchange or queue that could not be declared. */
  public String name() {
    return name;
  }
}
