package dev.once.spi;

import java.time.Instant;

/**
 * A table-queue claim.
 *
 * @param consumerId whose rows
 * @param now rows visible at this instant are claimed
 * @param limit at most this many
 * @param visibleUntil claimed rows stay invisible to other claims until then
 */
public record QueueClaim(String consumerId, Instant now, int limit, Instant visibleUntil) {
  /**
   * The consumer id under its old name.
   *
   * @deprecated a consumer has one name everywhere: {@link #consumerId()}
   */
  @Deprecated(since = "1.1", forRemoval = true)
  public String consumerGroup() {
    return consumerId;
  }
}
