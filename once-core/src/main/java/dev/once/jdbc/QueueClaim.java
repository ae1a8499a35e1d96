package dev.once.jdbc;

import java.time.Instant;

/**
 * A table-queue claim.
 *
 * @param consumerId whose rows
 * @param now rows visible at this instant are claimed
 * @param limit at most this many
 * @param visibleUntil claimed rows stay invisible to other claims until then
 */
public record QueueClaim(String consumerId, Instant now, int limit, Instant visibleUntil) {}
