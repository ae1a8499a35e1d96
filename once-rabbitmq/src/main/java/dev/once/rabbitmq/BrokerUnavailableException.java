package dev.once.rabbitmq;

import dev.once.OnceException;

/**
 * The broker could not be reached, or the connection is down and being recovered. Relays and
 * consumers back off and try again; nothing was published or acknowledged by the failed call.
 */
public class BrokerUnavailableException extends OnceException {
  private static final long serialVersionUID = 1L;
  private final String broker;

  public BrokerUnavailableException(String broker, String problem, Throwable cause) {
    super("RabbitMQ at " + broker + " " + problem, cause);
    this.broker = broker;
  }

  /** The broker's URI, without the password. */
  public String broker() {
    return broker;
  }
}
