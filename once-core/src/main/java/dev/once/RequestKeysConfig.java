package dev.once;

import dev.once.spi.Validate;
import java.time.Duration;

/**
 * The settings of {@link RequestKeys}; built by {@link RequestKeysBuilder}.
 *
 * @param retention how long a key is kept after its request committed (default 24 h, as Stripe); a
 *     retry after that runs again as a new request
 * @param maxWait how long a request whose key another request holds polls for that one's response
 *     before it is answered IN_PROGRESS (HTTP 409); default zero: answer at once
 * @param maxResponseBytes the largest response body stored (default 1 MiB, at most 16 MiB)
 * @param batchSize keys deleted per statement by {@link RequestKeys#deleteExpired()}
 * @param cleanupInterval time between two runs of {@link RequestKeys#deleteExpired()}
 */
public record RequestKeysConfig(
    Duration retention,
    Duration maxWait,
    int maxResponseBytes,
    int batchSize,
    Duration cleanupInterval) {

  /** The largest {@link #maxResponseBytes()} allowed (MariaDB's MEDIUMBLOB holds 16 MiB − 1). */
  public static final int MAX_RESPONSE_BYTES = 16 * 1024 * 1024 - 1;

  public RequestKeysConfig {
    Validate.positive("requestKeys.retention", retention);
    Validate.notNull("requestKeys.maxWait", maxWait);
    if (maxWait.isNegative()) {
      throw new ConfigurationException("requestKeys.maxWait", "must be >= 0, was " + maxWait);
    }
    Validate.range("requestKeys.maxResponseBytes", maxResponseBytes, 0, MAX_RESPONSE_BYTES);
    Validate.range("requestKeys.batchSize", batchSize, 1, 100_000);
    Validate.positive("requestKeys.cleanupInterval", cleanupInterval);
  }
}
