package dev.once;

/**
 * A client's {@code Idempotency-Key} for one API request, scoped by the client that sent it: two
 * clients may use the same key and never see each other's stored response.
 *
 * @param scope who sent the request (an authenticated principal, an API client id); 1 to 255
 *     characters, no control characters
 * @param key the client's key; 1 to 255 characters of printable ASCII (space to {@code ~}), as the
 *     IETF draft's sf-string allows and Stripe's 255-character limit bounds
 */
public record RequestKey(String scope, String key) {
  /** The longest key and the longest scope, in characters. */
  public static final int MAX_LENGTH = 255;

  public RequestKey {
    check("requestKey.scope", scope, false);
    check("requestKey.key", key, true);
  }

  public static RequestKey of(String scope, String key) {
    return new RequestKey(scope, key);
  }

  private static void check(String field, String value, boolean asciiOnly) {
    if (value == null || value.isEmpty()) {
      throw new InvalidRequestKeyException(field, "is empty");
    }
    if (value.length() > MAX_LENGTH) {
      throw new InvalidRequestKeyException(
          field, "is " + value.length() + " characters long, more than " + MAX_LENGTH);
    }
    for (int i = 0; i < value.length(); i++) {
      char ch = value.charAt(i);
      if (Character.isISOControl(ch) || (asciiOnly && (ch < 0x20 || ch > 0x7e))) {
        throw new InvalidRequestKeyException(
            field,
            "has character U+%04X at index %d: %s"
                .formatted(
                    (int) ch,
                    i,
                    asciiOnly ? "only printable ASCII is allowed" : "no control characters"));
      }
    }
  }

  @Override
  public String toString() {
    return scope + "/" + key;
  }
}
