package dev.once;

import java.util.Locale;

/**
 * Where a dead letter stands, stored in {@code once_dead_letter.status} as {@link #value()}: open
 * until someone replays or discards it.
 */
public enum DeadLetterStatus {
  /** Open: no one has replayed or discarded it yet. */
  DEAD,
  /** Replayed: handed to its consumer again. */
  REPLAYED,
  /** Discarded: given up on by an operator. */
  DISCARDED;

  /** The stored form: {@code dead}, {@code replayed} or {@code discarded}. */
  public String value() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The stored form, as the command line and the dashboard show it. */
  @Override
  public String toString() {
    return value();
  }

  /**
   * The status a stored value names. Strict: anything but the three stored forms (a row written by
   * hand, a newer version's status) fails naming the value, instead of showing up as some status.
   *
   * @throws OnceException for any other value, null included
   */
  public static DeadLetterStatus of(String stored) {
    if (stored != null) {
      for (DeadLetterStatus s : values()) {
        if (s.value().equals(stored)) {
          return s;
        }
      }
    }
    throw new OnceException(
        "once_dead_letter.status '"
            + stored
            + "' is none of dead, replayed, discarded (a row this version did not write?)");
  }
}
