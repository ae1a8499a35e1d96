package dev.once;

/**
 * What the provider said when asked about an uncertain operation.
 *
 * @param kind found, not found, or cannot tell
 * @param result the provider's record of the action when found, else null
 * @param detail why it cannot tell, for the operation's resolution; may be null
 */
public record LookupAnswer(Kind kind, String result, String detail) {

  public enum Kind {
    /** The provider did it; {@link #result()} is its record. The operation SUCCEEDED. */
    FOUND,
    /** The provider is sure it did not do it: calling again with the same key is safe. */
    NOT_FOUND,
    /** The provider cannot say (no lookup, key forgotten): the configured policy decides. */
    CANNOT_TELL
  }

  public static LookupAnswer found(String result) {
    return new LookupAnswer(Kind.FOUND, result, null);
  }

  public static LookupAnswer notFound() {
    return new LookupAnswer(Kind.NOT_FOUND, null, null);
  }

  public static LookupAnswer cannotTell(String detail) {
    return new LookupAnswer(Kind.CANNOT_TELL, null, detail);
  }
}
