package dev.once;

/**
 * The remote call of an operation, e.g. an HTTP request to a payment provider. It must send {@code
 * idempotencyKey} (e.g. as the {@code Idempotency-Key} header) so the provider recognises a retry.
 *
 * <p>Return the provider's response on success. Throw {@link ProviderRejectedException} when the
 * provider gave a definitive refusal (the operation becomes FAILED and is never called again),
 * {@link RequestNotSentException} when the request provably never left (connection refused), and
 * anything else when the outcome is unknown (timeout, reset, 5xx): the operation becomes UNKNOWN.
 */
@FunctionalInterface
public interface OperationCall {
  String call(String idempotencyKey, String request) throws Exception;
}
