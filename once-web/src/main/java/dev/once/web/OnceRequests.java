package dev.once.web;

import dev.once.OnceException;
import dev.once.Tx;
import jakarta.servlet.ServletRequest;

/** What a servlet handler behind {@link IdempotencyFilter} reaches through its request. */
public final class OnceRequests {
  private OnceRequests() {}

  /** The request attribute under which the filter puts the request's {@link Tx}. */
  public static final String TX = "dev.once.web.tx";

  /**
   * The transaction of a keyed request: write the business change and {@code tx.publish} the events
   * on it, and they commit with the request key and the stored response.
   *
   * @throws OnceException if the request did not pass through {@link IdempotencyFilter} with a key
   */
  public static Tx tx(ServletRequest request) {
    Object tx = request.getAttribute(TX);
    if (tx instanceof Tx t) {
      return t;
    }
    throw new OnceException(
        "no Once transaction on this request: it did not pass through IdempotencyFilter with an"
            + " Idempotency-Key");
  }
}
