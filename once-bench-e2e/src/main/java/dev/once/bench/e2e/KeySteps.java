package dev.once.bench.e2e;

/**
 * The orders of an ordered faults run, keyed so that order is there to keep: order {@code n} (from
 * 1) is step {@code (n - 1) / keys + 1} of key {@code (n - 1) % keys}, about {@link #STEPS} steps a
 * key. The event carries both, fixed at publish: the key as its key, the order (so the step) as its
 * id {@code bench-paid:n}; the warehouse's effect records them (key as {@code order_id}, the id as
 * {@code event_id}) and its {@code id} numbers the effects in insert order, which for one key is
 * commit order (a key runs in one transaction at a time). {@link #outOfOrder} counts the effects
 * that do not follow their key's previous one by exactly one step: a decrease, a repeat or a gap.
 *
 * <p>Several producers keep each key's steps in publish order because a key belongs to one
 * producer: {@code keys} is a multiple of {@code producers}, so producer {@code t} owns the keys
 * {@code t, t + producers, …}, which are exactly the orders {@code t + 1, t + 1 + producers, …},
 * and it commits them in that order, one transaction after another.
 */
record KeySteps(long events, int keys, int producers) {
  /** Steps a key has (about: the last keys may have one fewer). */
  static final int STEPS = 10;

  private static final int MAX_KEYS = 1 << 20;

  /** {@code events} orders on keys of about {@link #STEPS} steps, owned by {@code producers}. */
  static KeySteps of(long events, int producers) {
    // capped per producer, so that the key count stays a multiple of producers (a key, one owner)
    long perProducer =
        Math.max(1, Math.min(events / ((long) STEPS * producers), MAX_KEYS / producers));
    return new KeySteps(events, (int) (perProducer * producers), producers);
  }

  long key(long order) {
    return (order - 1) % keys;
  }

  /** Producer {@code thread}'s orders, in the order it commits them. */
  long[] orders(int thread) {
    int count = (int) Math.max(0, (events - thread + producers - 1) / producers);
    long[] orders = new long[count];
    for (int i = 0; i < count; i++) {
      orders[i] = thread + 1 + (long) i * producers;
    }
    return orders;
  }

  /**
   * The warehouse's effects out of their key's step order, in the order they were inserted: the
   * step from the effect's event id {@code bench-paid:n}, the key from its {@code order_id}.
   */
  String outOfOrder(boolean mariaDb) {
    String order =
        "CAST(substr(event_id, "
            + ("bench-paid:".length() + 1)
            + ") AS "
            + (mariaDb ? "SIGNED" : "bigint")
            + ")";
    return """
        SELECT count(*) FROM (
          SELECT step, lag(step) OVER (PARTITION BY order_id ORDER BY id) AS prev
            FROM (SELECT id, order_id, floor((%s - 1) / %d) + 1 AS step
                    FROM bench_effects) s) e
         WHERE step <> coalesce(prev, 0) + 1
        """
        .formatted(order, keys);
  }
}
