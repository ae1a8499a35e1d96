package dev.once;

/** A request key or scope that Once refuses to store: empty, too long or with a bad character. */
public class InvalidRequestKeyException extends OnceException {
  private final String field;

  public InvalidRequestKeyException(String field, String problem) {
    super(field + " " + problem);
    this.field = field;
  }

  /** The refused field, e.g. {@code requestKey.key}. */
  public String field() {
    return field;
  }
}
