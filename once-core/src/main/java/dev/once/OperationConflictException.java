package dev.once;

/**
 * The operation id is already stored with a different request (or provider). Reusing an operation
 * id for a different request is a bug in the caller; the provider is not called.
 */
public class OperationConflictException extends OnceException {
  private static final long serialVersionUID = 1L;
  private final String operationId;
  private final String storedFingerprint;
  private final String requestFingerprint;

  public OperationConflictException(
      String operationId, String what, String storedFingerprint, String requestFingerprint) {
    super(
        "operation '"
            + operationId
            + "' is stored with a different "
            + what
            + " (stored "
            + storedFingerprint
            + ", this call "
            + requestFingerprint
            + "): an operation id names one request; use a new id for a new request");
    this.operationId = operationId;
    this.storedFingerprint = storedFingerprint;
    this.requestFingerprint = requestFingerprint;
  }

  public String operationId() {
    return operationId;
  }

  public String storedFingerprint() {
    return storedFingerprint;
  }

  public String requestFingerprint() {
    return requestFingerprint;
  }
}
