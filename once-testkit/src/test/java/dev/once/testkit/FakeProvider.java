package dev.once.testkit;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A payment provider in memory that honours idempotency keys, as real ones do: a second request
 * with a key it has seen returns the first charge instead of charging again. It cannot know that
 * two requests with different keys are the same payment.
 */
final class FakeProvider {
  private final Map<String, String> chargeByKey = new ConcurrentHashMap<>();
  private final Map<String, Integer> chargesByOrder = new ConcurrentHashMap<>();

  /** Charges {@code order} unless {@code idempotencyKey} was seen; returns the charge id. */
  String charge(String order, String idempotencyKey) {
    return chargeByKey.computeIfAbsent(
        idempotencyKey,
        k -> {
          chargesByOrder.merge(order, 1, Integer::sum);
          return "ch_" + k.hashCode();
        });
  }

  long charges(String order) {
    return chargesByOrder.getOrDefault(order, 0);
  }
}
