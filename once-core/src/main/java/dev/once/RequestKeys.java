package dev.once;

import java.util.Optional;

/**
 * Request keys: a client's {@code Idempotency-Key} and the response its first request got, stored
 * in the same transaction as that request's business change and outgoing events. Obtain from {@link
 * Once#requestKeys()}; framework filters (once-web, the Spring starter) sit on it.
 *
 * <pre>{@code
 * RequestKeys keys = once.requestKeys().retention(Duration.ofHours(24)).build();
 * RequestResult r = keys.run(RequestKey.of(clientId, header), RequestFingerprint.of(...), tx -> {
 *   tx.update("insert into orders (id, sku) values (?, ?)", orderId, sku);
 *   tx.publish(orderPlaced(orderId));
 *   return StoredResponse.of(201, Map.of("Content-Type", List.of("application/json")), json);
 * });
 * }</pre>
 *
 * <p>Guarantee: for one {@link RequestKey}, the work commits at most once while the key is kept
 * (see {@link RequestKeysConfig#retention()}); every later request with the same key and
 * fingerprint gets the stored response without running anything. A crash before the commit leaves
 * nothing (the retry runs); a crash after it leaves the response (the retry gets it).
 */
public interface RequestKeys extends AutoCloseable {

  /**
   * Runs {@code work} unless {@code key} is stored or held. Claims the key first (one statement; a
   * request of another transaction holding it is not waited on by the database), then runs the work
   * in the same transaction, stores its response and commits. If another request holds the key,
   * polls for up to {@link RequestKeysConfig#maxWait()} before answering {@link
   * RequestResult.Status#IN_PROGRESS}.
   *
   * @throws OnceException whatever the work threw (rolled back, nothing stored), or if the
   *     response's body is over {@link RequestKeysConfig#maxResponseBytes()} (rolled back)
   */
  RequestResult run(RequestKey key, RequestFingerprint fingerprint, RequestWork work);

  /** The stored response of a key, if it is stored (a read, no claim). */
  Optional<StoredResponse> find(RequestKey key);

  /**
   * Deletes keys whose retention ran out, in batches of {@link RequestKeysConfig#batchSize()}, each
   * its own statement; returns how many. A retry of a deleted key runs as a new request.
   */
  long deleteExpired();

  /** Runs {@link #deleteExpired()} every {@link RequestKeysConfig#cleanupInterval()}. */
  RequestKeys start();

  RequestKeysConfig config();

  /** Stops the cleanup thread if started. */
  @Override
  void close();
}
