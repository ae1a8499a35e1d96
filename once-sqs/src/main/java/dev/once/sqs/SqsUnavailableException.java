package dev.once.sqs;

import dev.once.OnceException;

/**
 * SQS did not answer a call in time, or refused it (a missing queue, a denied permission). An
 * {@link OnceException}, as everything Once throws; {@link #operation()} says what was asked.
 */
public final class SqsUnavailableException extends OnceException {
  private static final long serialVersionUID = 1L;

  private final String operation;

  /**
   * @param operation what was asked of SQS, e.g. {@code create queue orders__billing}
   * @param cause the client's error
   */
  public SqsUnavailableException(String operation, Throwable cause) {
    super(operation + ": " + cause, cause);
    this.operation = operation;
  }

  /** What was asked of SQS, e.g. {@code create queue orders__billing}. */
  public String operation() {
    return operation;
  }
}
