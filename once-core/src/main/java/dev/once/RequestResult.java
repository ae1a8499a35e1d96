package dev.once;

/**
 * What {@link RequestKeys#run} came to.
 *
 * @param status which of the four cases it was
 * @param response the response to send: the one just stored ({@link Status#EXECUTED}), or the one
 *     stored by the first request ({@link Status#REPLAYED}); null otherwise
 */
public record RequestResult(Status status, StoredResponse response) {

  /** The four cases of a keyed request. */
  public enum Status {
    /** The key was new: the work ran and its response committed with it. */
    EXECUTED,
    /** The key was stored with the same fingerprint: its response, nothing ran. HTTP: as stored. */
    REPLAYED,
    /** The key was stored with another fingerprint: nothing ran. HTTP 422. */
    FINGERPRINT_MISMATCH,
    /** Another request holds the key (its transaction is open): nothing ran. HTTP 409. */
    IN_PROGRESS
  }

  public static RequestResult executed(StoredResponse r) {
    return new RequestResult(Status.EXECUTED, r);
  }

  public static RequestResult replayed(StoredResponse r) {
    return new RequestResult(Status.REPLAYED, r);
  }

  public static final RequestResult MISMATCH = new RequestResult(Status.FINGERPRINT_MISMATCH, null);
  public static final RequestResult IN_PROGRESS = new RequestResult(Status.IN_PROGRESS, null);
}
