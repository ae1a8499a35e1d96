package dev.once.jdbc;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * What a relay statement adds so that a row of a key-ordered destination waits behind an earlier
 * unsent row of its key that is not due (in publish backoff, parked, or with no consumer bound
 * yet): a condition that follows {@code (next_attempt_at IS NULL OR next_attempt_at <= ?)} on
 * {@code once_outbox}, and its parameters, which follow that one's. Rows of other destinations and
 * rows without a key pass. With no key-ordered destination it adds nothing: the statement is the
 * unordered one, unchanged.
 *
 * @param condition the condition, starting with a line break and {@code AND}, or empty
 * @param holdParameters the condition's parameters
 */
public record KeyHold(String condition, List<Object> holdParameters) {
  public static final KeyHold NONE = new KeyHold("", List.of());

  /** The hold for {@code keyOrdered} destinations at {@code now}; {@link #NONE} for none. */
  public static KeyHold of(Sql sql, Set<String> keyOrdered, Instant now) {
    if (keyOrdered.isEmpty()) {
      return NONE;
    }
    SqlList destinations = SqlList.of("text", List.copyOf(keyOrdered));
    return new KeyHold(condition(sql.in("destination", destinations)), List.of(destinations, now));
  }

  /**
   * The condition over {@code destinationIn}, a condition that a row's destination is key-ordered
   * with its own parameters, which come first; then the time.
   */
  public static String condition(String destinationIn) {
    return condition(destinationIn, "?");
  }

  /**
   * The same with the time as {@code now}, an expression of one parameter (a store that binds its
   * instants in a form of its own).
   */
  public static String condition(String destinationIn, String now) {
    return """

           AND (event_key IS NULL
                OR NOT (%s)
                OR NOT EXISTS (SELECT 1 FROM once_outbox h
                                WHERE h.sent_at IS NULL AND h.next_attempt_at > %s
                                  AND h.destination = once_outbox.destination
                                  AND h.event_key = once_outbox.event_key
                                  AND h.id < once_outbox.id))\
        """
        .formatted(destinationIn, now);
  }

  /**
   * The statement's parameters: {@code throughDue}, those up to the due time and it, then the
   * hold's, then {@code after}.
   */
  public Object[] parameters(Object[] throughDue, Object... after) {
    List<Object> all = new ArrayList<>(Arrays.asList(throughDue));
    all.addAll(holdParameters);
    all.addAll(Arrays.asList(after));
    return all.toArray();
  }
}
