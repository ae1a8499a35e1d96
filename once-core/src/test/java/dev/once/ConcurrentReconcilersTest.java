package dev.once;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.test.FakeProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConcurrentReconcilersTest {
  private static final int OPERATIONS = 400;
  private static final int RECONCILERS = 6;
  private final OperationFixture f = new OperationFixture(false);

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void severalReconcilersOverManyDueOperationsCallEachExactlyOnce() throws Exception {
    Operations emails = f.operations(b -> b.reconcileBatchSize(10));
    f.once.inTransaction(
        tx -> {
          for (int i = 0; i < OPERATIONS; i++) {
            emails.request(tx, "email:" + i, "{\"dispatch\":" + i + "}");
          }
          return null;
        });
    f.provider.delay(1);

    runConcurrently(emails);

    assertThat(f.provider.calls()).as("calls the provider received").isEqualTo(OPERATIONS);
    assertThat(performedPerRequest(f.provider).values()).containsOnly(1L);
    assertThat(performedPerRequest(f.provider)).hasSize(OPERATIONS);
    assertThat(f.count("state = 'SUCCEEDED' AND attempts = 1 AND owner IS NULL"))
        .isEqualTo(OPERATIONS);
  }

  /** Each reconciler runs until a run finds nothing due; all start together. */
  private static void runConcurrently(Operations ops) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(RECONCILERS);
    try {
      List<Future<Integer>> runs = new ArrayList<>();
      for (int i = 0; i < RECONCILERS; i++) {
        Reconciler reconciler = ops.newReconciler();
        runs.add(pool.submit(() -> drain(reconciler)));
      }
      List<Integer> taken = new ArrayList<>();
      for (Future<Integer> run : runs) {
        taken.add(run.get(60, TimeUnit.SECONDS));
      }
      assertThat(taken.stream().mapToInt(Integer::intValue).sum())
          .as("operations taken by all reconcilers together")
          .isEqualTo(OPERATIONS);
      assertThat(taken.stream().filter(n -> n > 0).count())
          .as("reconcilers that took work: %s", taken)
          .isGreaterThan(1);
    } finally {
      pool.shutdownNow();
    }
  }

  private static int drain(Reconciler reconciler) {
    int taken = 0;
    for (int n = reconciler.runOnce(); n > 0; n = reconciler.runOnce()) {
      taken += n;
    }
    return taken;
  }

  private static Map<String, Long> performedPerRequest(FakeProvider provider) {
    return provider.ledger().stream()
        .collect(Collectors.groupingBy(FakeProvider.Action::request, Collectors.counting()));
  }
}
