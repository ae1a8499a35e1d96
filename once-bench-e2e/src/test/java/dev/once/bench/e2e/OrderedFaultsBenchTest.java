package dev.once.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.test.TestDatabase;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code once bench faults --ordered} on the table queue with small numbers: orders share keys,
 * each key's steps published in order by the one producer that owns it, and every phase counts the
 * effects out of their key's order. No timing is asserted.
 */
class OrderedFaultsBenchTest {
  private static final int ORDERS = 200;

  @Test
  void anOrderedRunUnderCrashesHasEveryEffectOnceAndNoneOutOfKeyOrder() throws Exception {
    Map<String, Object> json = run(List.of(0.0, 0.2), KeySteps::orders);

    assertThat(json).containsEntry("out_of_order", 0L).containsEntry("duplicate_effects", 0L);
    for (Map<String, Object> phase : phases(json)) {
      assertThat(phase).containsEntry("effects", 2L * ORDERS).containsEntry("out_of_order", 0L);
    }
    assertThat(phases(json).get(1).get("crashes")).as("crashes at rate 0.2").isNotEqualTo(0L);
    assertThat(json.get("ok")).isEqualTo(true);
  }

  /**
   * The broken twin: producer 0 commits key 0's step 2 before its step 1 (each in a transaction of
   * its own), so the ordered consumer, keeping commit order, applies 2, 1, 3: three effects that do
   * not follow their key's previous one by one. Whatever the timing, the check must see them and
   * the run must fail.
   */
  @Test
  void theCheckCatchesAKeyWhoseStepsTookEffectOutOfOrder() throws Exception {
    Map<String, Object> json =
        run(
            List.of(0.0),
            (keys, producer) -> {
              long[] orders = keys.orders(producer);
              if (producer == 0) {
                int second =
                    keys.keys() / keys.producers(); // key 0's step 2 in this producer's list
                long step1 = orders[0];
                orders[0] = orders[second];
                orders[second] = step1;
              }
              return orders;
            });

    assertThat(json).containsEntry("out_of_order", 3L).containsEntry("duplicate_effects", 0L);
    assertThat(phases(json).get(0)).containsEntry("effects", 2L * ORDERS);
    assertThat(json.get("ok")).isEqualTo(false);
  }

  @Test
  void aKeysStepsBelongToOneProducerWhichPublishesThemInOrder() {
    KeySteps keys = KeySteps.of(ORDERS, 4);
    assertThat(keys.keys()).isEqualTo(20);
    java.util.Set<Long> seen = new java.util.HashSet<>();
    for (int t = 0; t < 4; t++) {
      long last = 0;
      for (long order : keys.orders(t)) {
        assertThat(keys.key(order) % 4).isEqualTo(t);
        assertThat(order).isGreaterThan(last);
        last = order;
        seen.add(order);
      }
    }
    assertThat(seen).hasSize(ORDERS);
  }

  /** A run too long for ten steps a key caps the keys at a multiple of its producers. */
  @Test
  void theKeyCapKeepsEveryKeyWithOneProducer() {
    KeySteps keys = KeySteps.of(100_000_000L, 3);
    assertThat(keys.keys() % 3).isZero();
    assertThat(keys.keys()).isBetween((1 << 20) - 3, 1 << 20);
  }

  private static Map<String, Object> run(List<Double> rates, FaultsBench.Publishing publishing)
      throws Exception {
    BenchSettings s = new BenchSettings(ORDERS, 2, 32, 2, 200, 4, 1, 16, 0, 120, true);
    try (TestDatabase db = TestDatabase.local();
        BenchEnv env = new BenchEnv(db.dataSource(), "test", "table", null, () -> null, s)) {
      PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
      BenchResult result =
          FaultsBench.run(env, rates, 22, Duration.ofSeconds(2), 0, quiet, publishing);
      Map<String, Object> json = new java.util.LinkedHashMap<>(result.json());
      json.put("ok", result.ok());
      return json;
    }
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> phases(Map<String, Object> json) {
    return (List<Map<String, Object>>) json.get("phases");
  }
}
