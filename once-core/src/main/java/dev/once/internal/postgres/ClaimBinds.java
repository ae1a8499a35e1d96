package dev.once.internal.postgres;

import dev.once.jdbc.TransactionWaits;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;

/**
 * Binds {@link PostgresStore#claimRelayBatch}'s parameters (the settings' waits, the due
 * partitions' and the share's, then the claim's), each with its own setter, and keeps the waits'
 * texts: a relay binds them every batch, and a list, its boxes and the waits' texts made anew were
 * a tenth of what a batch of one allocated on the relay's thread.
 */
final class ClaimBinds {
  /** {@link PostgresFlavour#millis} of a relay's waits, kept: they are the same every batch. */
  private record WaitTexts(TransactionWaits waits, String lockWait, String idleInTransaction) {}

  private volatile WaitTexts waitTexts;

  /** {@code keyOrdered}: the key-ordered destinations, or null when no destination is. */
  void bind(
      PreparedStatement ps,
      TransactionWaits waits,
      long now,
      int limit,
      int relays,
      String[] keyOrdered)
      throws SQLException {
    WaitTexts texts = waitTexts(waits);
    int i = 1;
    bindText(ps, i++, texts.lockWait());
    bindText(ps, i++, texts.idleInTransaction());
    i = bindDue(ps, i, now, keyOrdered);
    ps.setInt(i++, limit);
    ps.setInt(i++, relays);
    ps.setInt(i++, relays);
    i = bindDue(ps, i, now, keyOrdered);
    ps.setInt(i, limit);
  }

  /** A due condition's parameters: now, then the hold's (the destinations and now), if any. */
  private static int bindDue(PreparedStatement ps, int i, long now, String[] keyOrdered)
      throws SQLException {
    ps.setLong(i++, now);
    if (keyOrdered != null) {
      ps.setObject(i++, keyOrdered);
      ps.setLong(i++, now);
    }
    return i;
  }

  private static void bindText(PreparedStatement ps, int i, String text) throws SQLException {
    if (text == null) {
      ps.setNull(i, Types.NULL);
    } else {
      ps.setString(i, text);
    }
  }

  private WaitTexts waitTexts(TransactionWaits waits) {
    WaitTexts texts = waitTexts;
    if (texts == null || !texts.waits().equals(waits)) {
      texts =
          new WaitTexts(
              waits,
              PostgresFlavour.millis(waits.lockWait()),
              PostgresFlavour.millis(waits.idleInTransaction()));
      waitTexts = texts;
    }
    return texts;
  }
}
