package dev.once.kafka.internal;

/**
 * What the transport writes in the metadata of each committed offset, so that the next owner of a
 * partition (after a crash, a rebalance, a restart) knows what was handed out before it: {@code
 * mark} = every record at or below it may have been handed out to a worker (it is reserved, and
 * committed, before those records are handed out); {@code round} = how many times the partition was
 * taken over with its committed offset at {@code roundOffset} and records outstanding. Records at
 * or below the mark come back flagged redelivered, with delivery count {@code round + 1}: Kafka has
 * no delivery count, this is its durable stand-in, and it bounds a record that kills its process
 * every time.
 */
record OffsetNote(long mark, long roundOffset, int round) {
  static final OffsetNote NONE = new OffsetNote(-1, -1, 0);
  private static final String PREFIX = "once:";

  String encode() {
    return PREFIX + "m=" + mark + ";o=" + roundOffset + ";r=" + round;
  }

  /** The note in a committed offset's metadata; {@link #NONE} if absent or not ours. */
  static OffsetNote decode(String metadata) {
    if (metadata == null || !metadata.startsWith(PREFIX)) {
      return NONE;
    }
    long m = -1;
    long o = -1;
    int r = 0;
    try {
      for (String part : metadata.substring(PREFIX.length()).split(";")) {
        String[] kv = part.split("=", 2);
        if (kv.length != 2) {
          continue;
        }
        switch (kv[0]) {
          case "m" -> m = Long.parseLong(kv[1]);
          case "o" -> o = Long.parseLong(kv[1]);
          case "r" -> r = Integer.parseInt(kv[1]);
          default -> {}
        }
      }
    } catch (NumberFormatException e) {
      return NONE;
    }
    return new OffsetNote(m, o, r);
  }

  /** The note to commit with {@code offset}: the round is kept only while the offset stays. */
  OffsetNote at(long offset, long newMark) {
    return offset == roundOffset
        ? new OffsetNote(newMark, roundOffset, round)
        : new OffsetNote(newMark, offset, 0);
  }
}
