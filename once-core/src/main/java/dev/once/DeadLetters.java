package dev.once;

import dev.once.internal.DeadLetterStore;
import dev.once.spi.Dialect;
import dev.once.spi.Transport;
import java.time.Clock;
import java.util.List;
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

  /** Replays the open dead letters the filter selects; returns those replayed. */
  public List<DeadLetter> replay(DeadLetterFilter filter, String actor, String reason) {
    return store.resolve(filter, "replay", actor, reason);
  }

  /** Discards the open dead letters the filter selects (they stay listed as discarded). */
  public List<DeadLetter> discard(DeadLetterFilter filter, String actor, String reason) {
    return store.resolve(filter, "discard", actor, reason);
  }
}
