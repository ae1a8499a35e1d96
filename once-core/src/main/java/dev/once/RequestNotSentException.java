package dev.once;

/**
 * Thrown by an {@link OperationCall} when the request provably never reached the provider (the
 * connection was refused or could not be opened). The operation keeps its key and goes back to
 * PENDING (or stays UNKNOWN if an earlier attempt was uncertain); it is tried again later.
 */
public class RequestNotSentException extends OnceException {
  private static final long serialVersionUID = 1L;

  public RequestNotSentException(String message, Throwable cause) {
    super(message, cause);
  }
}
