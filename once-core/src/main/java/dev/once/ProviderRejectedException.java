package dev.once;

/**
 * Thrown by an {@link OperationCall} when the provider gave a definitive "no" (card declined,
 * invalid request). The operation becomes FAILED with {@link #response()} as its result and is
 * never called again.
 */
public class ProviderRejectedException extends OnceException {
  private static final long serialVersionUID = 1L;
  private final String response;

  public ProviderRejectedException(String message, String response) {
    super(message);
    this.response = response;
  }

  /** The provider's answer, stored as the operation's result. */
  public String response() {
    return response;
  }
}
