package dev.once;

import java.time.Duration;

/** Describes {@link RequestKeys}; {@link #build()} validates. From {@link Once#requestKeys()}. */
public final class RequestKeysBuilder {
  private final Once once;
  private Duration retention = Duration.ofHours(24);
  private Duration maxWait = Duration.ZERO;
  private int maxResponseBytes = 1024 * 1024;
  private int batchSize = 1000;
  private Duration cleanupInterval = Duration.ofMinutes(1);

  RequestKeysBuilder(Once once) {
    this.once = once;
  }

  /**
   * How long a key is kept after its request (default 24 h). Publish it to your clients: a retry
   * later than this runs the request again.
   */
  public RequestKeysBuilder retention(Duration retention) {
    this.retention = retention;
    return this;
  }

  /**
   * How long a request whose key is held by another one in progress polls for that one's response
   * (default 0: answer IN_PROGRESS at once, as the IETF draft's 409 and Stripe do). Waiting holds a
   * server thread per waiting retry; a retrying client is better told to come back.
   */
  public RequestKeysBuilder maxWait(Duration maxWait) {
    this.maxWait = maxWait;
    return this;
  }

  /** The largest response body stored (default 1 MiB, at most 16 MiB − 1). */
  public RequestKeysBuilder maxResponseBytes(int maxResponseBytes) {
    this.maxResponseBytes = maxResponseBytes;
    return this;
  }

  public RequestKeysBuilder batchSize(int batchSize) {
    this.batchSize = batchSize;
    return this;
  }

  public RequestKeysBuilder cleanupInterval(Duration cleanupInterval) {
    this.cleanupInterval = cleanupInterval;
    return this;
  }

  /**
   * @throws ConfigurationException naming the bad setting
   * @throws SchemaMissingException if the schema has no {@code once_request} table
   */
  public RequestKeys build() {
    return once.requestKeys(
        new RequestKeysConfig(retention, maxWait, maxResponseBytes, batchSize, cleanupInterval));
  }
}
