package dev.once.jdbc;

import java.util.List;

/**
 * Which parked keys to read: a keyset page ordered by the head's dead-letter id.
 *
 * @param consumerId only this consumer group's; null: every group's
 * @param key only this key; null: every key
 * @param deadLetterIds only the keys these dead letters head; null: any
 * @param afterId only keys whose head's dead-letter id is above this one (-1: from the first, keys
 *     without a dead letter included)
 * @param limit at most this many
 */
public record ParkedKeyQuery(
    String consumerId, String key, List<Long> deadLetterIds, long afterId, int limit) {

  public ParkedKeyQuery {
    deadLetterIds = deadLetterIds == null ? null : List.copyOf(deadLetterIds);
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be > 0, was " + limit);
    }
  }
}
