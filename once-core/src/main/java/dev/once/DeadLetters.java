package dev.once;

import dev.once.internal.DeadLetterStore;
import dev.once.spi.Dialect;
import dev.once.spi.Transport;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The admin side of dead letters: list, replay, discard. Every replay and discard is recorded in
 * {@code once_dead_letter_action} with who, when and why.
 *
 * <p>A replay publishes the event again through the transport with its id unchanged (to every
 * consumer group of its destination; those that processed it see a {@code DUPLICATE}) and resets
 * the consumer's attempt count; if the event was processed meanwhile, the replay is a {@code
 * DUPLICATE} too. A relay dead letter is replayed by making its outbox row pending again.
 */
public final class DeadLetters {
  private final DeadLetterStore store;

  public DeadLetters(DataSource dataSource, Transport transport, Dialect dialect, Clock clock) {
    this.store = new DeadLetterStore(dataSource, transport, dialect, clock);
  }

  public List<DeadLetter> list(DeadLetterFilter filter) {
    return store.list(filter);
  }

  /**
   * A page of the dead letters the filter selects, newest first, at most {@code filter.limit()}:
   * those with an id below {@code beforeId} ({@link Long#MAX_VALUE} for the first page, then the
   * last id of the previous page). Keyset paging: as fast on the last page as on the first.
   */
  public List<DeadLetter> page(DeadLetterFilter filter, long beforeId) {
    return store.page(filter, beforeId);
  }

  /** How many dead letters the filter selects (its limit ignored). */
  public long count(DeadLetterFilter filter) {
    return store.count(filter);
  }

  public Optional<DeadLetter> get(long id) {
    return store.get(id);
  }

  /** The replays and discards recorded for this dead letter's consumer and event, oldest first. */
  public List<DeadLetterAction> actions(DeadLetter deadLetter) {
    return store.actions(deadLetter);
  }

  /**
   * Dead letters of {@code status} (null: all) grouped by consumer, type and error fingerprint —
   * one bug, one group — largest first, at most {@code limit} groups.
   */
  public List<DeadLetterGroup> groups(String status, int limit) {
    return store.groups(status, limit);
  }

  /** Replays the open dead letters the filter selects; returns those replayed. */
  public List<DeadLetter> replay(DeadLetterFilter filter, String actor, String reason) {
    return store.resolve(filter, "replay", actor, reason);
  }

  /** Discards the open dead letters the filter selects (they stay listed as discarded). */
  public List<DeadLetter> discard(DeadLetterFilter filter, String actor, String reason) {
    return store.resolve(filter, "discard", actor, reason);
  }
}
