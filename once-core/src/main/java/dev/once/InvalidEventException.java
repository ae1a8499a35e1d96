package dev.once;

/** An event, or one of its fields, is not acceptable. Nothing was written. */
public class InvalidEventException extends OnceException {
  private static final long serialVersionUID = 1L;
  private final String field;

  public InvalidEventException(String field, String problem) {
    super(field + " " + problem);
    this.field = field;
  }

  /** The name of the offending field, e.g. {@code event.id}. */
  public String field() {
    return field;
  }
}
