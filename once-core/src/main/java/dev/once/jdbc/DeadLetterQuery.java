package dev.once.jdbc;

import dev.once.DeadLetterFilter;

/**
 * Which dead letters to read: those {@code filter} selects (at most its limit), in which order,
 * from which keyset cursor, with or without payloads and headers.
 *
 * @param filter the selection and the limit
 * @param newestFirst newest (highest id) first, else oldest first
 * @param cursor only ids after it in that order (above it oldest first, below it newest first);
 *     null: from the start
 * @param withPayload read the payload and headers columns; without, the events' payloads and
 *     headers are empty (a listing: a payload may be a megabyte, and is private)
 */
public record DeadLetterQuery(
    DeadLetterFilter filter, boolean newestFirst, Long cursor, boolean withPayload) {

  /** The selected dead letters, oldest first, whole. */
  public static DeadLetterQuery of(DeadLetterFilter filter) {
    return new DeadLetterQuery(filter, false, null, true);
  }

  /** A page of whole dead letters with an id below {@code beforeId}, newest first. */
  public static DeadLetterQuery pageBefore(DeadLetterFilter filter, long beforeId) {
    return new DeadLetterQuery(filter, true, beforeId, true);
  }

  /**
   * A page of summaries (no payloads, no headers) with an id above {@code afterId}, oldest first.
   */
  public static DeadLetterQuery summariesAfter(DeadLetterFilter filter, long afterId) {
    return new DeadLetterQuery(filter, false, afterId, false);
  }
}
