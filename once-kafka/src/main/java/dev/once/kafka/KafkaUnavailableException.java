package dev.once.kafka;

import dev.once.OnceException;

/**
 * The Kafka cluster did not answer an admin call in time, or refused it. An {@link OnceException},
 * as everything Once throws; {@link #operation()} says what was asked.
 */
public final class KafkaUnavailableException extends OnceException {
  private static final long serialVersionUID = 1L;

  private final String operation;

  /**
   * @param operation what was asked of the cluster, e.g. {@code create topic orders}
   * @param cause the client's error
   */
  public KafkaUnavailableException(String operation, Throwable cause) {
    super(operation + ": " + cause, cause);
    this.operation = operation;
  }

  /** What was asked of the cluster, e.g. {@code create topic orders}. */
  public String operation() {
    return operation;
  }
}
