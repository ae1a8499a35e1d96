package dev.once;

import java.util.List;

/**
 * The admin side of dead letters: list, replay, discard. Obtain it from {@link Once#deadLetters()}.
 * Every replay and discard is recorded in {@code once_dead_letter_action} with who, when and why.
 *
 * <p>A replay publishes the event again through the transport with its id unchanged (to every
 * consumer group of its destination; those that processed it see a {@code DUPLICATE}) and resets
 * the consumer's attempt count; if the event was processed meanwhile, the replay is a {@code
 * DUPLICATE} too. A relay dead letter is replayed by making its outbox row pending again.
 */
public interface DeadLetters {

  /** The dead letters the filter selects, newest first. */
  List<DeadLetter> list(DeadLetterFilter filter);

  /** Replays the open dead letters the filter selects; returns those replayed. */
  List<DeadLetter> replay(DeadLetterFilter filter, String actor, String reason);

  /** Discards the open dead letters the filter selects (they stay listed as discarded). */
  List<DeadLetter> discard(DeadLetterFilter filter, String actor, String reason);
}
