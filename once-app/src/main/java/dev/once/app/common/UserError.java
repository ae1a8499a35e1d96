package dev.once.app.common;

import dev.once.OnceException;

/** A problem the user can fix (bad option, unreachable database); printed as one line. */
public final class UserError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public UserError(String message) {
    super(message);
  }

  public UserError(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * The one line a failure prints: the message of a {@link UserError} or {@link OnceException} as
   * it is; of anything else its own message and its root cause's, once each.
   */
  public static String messageOf(Throwable e) {
    if (e instanceof OnceException || e instanceof UserError) {
      return e.getMessage();
    }
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String text = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    if (e.getMessage() == null) {
      return text;
    }
    return e.getMessage().contains(text) ? e.getMessage() : e.getMessage() + ": " + text;
  }
}
