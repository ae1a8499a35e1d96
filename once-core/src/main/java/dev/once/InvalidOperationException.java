package dev.once;

/** An operation id or request is not acceptable. Nothing was stored and nothing was called. */
public class InvalidOperationException extends OnceException {
  private static final long serialVersionUID = 1L;
  private final String field;

  public InvalidOperationException(String field, String problem) {
    super(field + " " + problem);
    this.field = field;
  }

  /** The offending field, e.g. {@code operation.id}. */
  public String field() {
    return field;
  }
}
