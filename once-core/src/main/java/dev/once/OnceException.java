package dev.once;

/** Root of every exception Once throws. Unchecked; subclasses say what failed and carry it. */
public class OnceException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public OnceException(String message) {
    super(message);
  }

  public OnceException(String message, Throwable cause) {
    super(message, cause);
  }
}
