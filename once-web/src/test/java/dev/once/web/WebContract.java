package dev.once.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.Once;
import dev.once.OnceListener;
import dev.once.RequestKeys;
import dev.once.testkit.CrashPoint;
import dev.once.testkit.FaultInjector;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The HTTP boundary on a real database and a real HTTP server: the crash windows of the API and 8
 * clients sending one key at once, each shown to catch a broken twin. One subclass per database.
 */
abstract class WebContract extends WebFixture {

  @Test
  void theRetryGetsTheFirstResponseByteForByteMarkedReplayed() {
    serve(new OnceListener() {});
    String key = newKey();
    HttpResponse<byte[]> first = post(key, "{\"sku\":\"lamp\"}");
    HttpResponse<byte[]> retry = post(key, "{\"sku\":\"lamp\"}");

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(replayed(first)).isFalse();
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(replayed(retry)).isTrue();
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(retry.headers().firstValue("Location"))
        .isEqualTo(first.headers().firstValue("Location"));
    assertThat(retry.headers().firstValue("Content-Type"))
        .isEqualTo(first.headers().firstValue("Content-Type"));
    assertThat(retry.headers().firstValue("X-Not-Stored")).isEmpty();
    assertThat(orders()).isOne();
    assertThat(outbox()).isOne();
  }

  @Test
  void theSameKeyWithAnotherBodyIs422AndRunsNothing() {
    serve(new OnceListener() {});
    String key = newKey();
    post(key, "{\"sku\":\"lamp\"}");
    HttpResponse<byte[]> other = post(key, "{\"sku\":\"desk\"}");

    assertThat(other.statusCode()).isEqualTo(422);
    assertThat(other.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(new String(other.body())).contains("\"status\":422").contains("key-reused");
    assertThat(orders()).isOne();
  }

  @Test
  void aMissingKeyIs400AndRunsNothing() {
    serve(new OnceListener() {});
    HttpResponse<byte[]> r = post(null, "{}");

    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(new String(r.body())).contains("Idempotency-Key is required on POST /orders");
    assertThat(orders()).isZero();
  }

  @Test
  void aThrowingHandlerRollsBackStoresNothingAndTheRetryRuns() {
    serve(new OnceListener() {});
    String key = newKey();
    assertThat(post(key, "{}", "X-Test-Fail", "throw").statusCode()).isEqualTo(500);
    assertThat(orders()).isZero();
    assertThat(outbox()).isZero();

    HttpResponse<byte[]> retry = post(key, "{}");
    assertThat(retry.statusCode()).isEqualTo(201);
    assertThat(replayed(retry)).isFalse();
    assertThat(orders()).isOne();
  }

  @Test
  void aServerErrorResponseIsSentRolledBackAndNotStored() {
    serve(new OnceListener() {});
    String key = newKey();
    HttpResponse<byte[]> failed = post(key, "{}", "X-Test-Fail", "500");
    assertThat(failed.statusCode()).isEqualTo(500);
    assertThat(new String(failed.body())).isEqualTo("the stock service is down");
    assertThat(orders()).isZero();

    assertThat(post(key, "{}").statusCode()).isEqualTo(201);
    assertThat(orders()).isOne();
  }

  // --- crash windows

  /** API, before commit: nothing stored; the retry runs once. */
  void crashBeforeCommit(Function<Once, RequestKeys> keys, FaultInjector faults, String key) {
    serve(faults, keys);
    assertThat(post(key, "{}").statusCode()).as("the crashed request").isEqualTo(500);
    assertThat(faults.crashes().get(CrashPoint.API_BEFORE_COMMIT)).isOne();
    assertThat(orders()).as("orders after the crash").isZero();

    HttpResponse<byte[]> retry = post(key, "{}");
    assertThat(retry.statusCode()).as("the retry").isEqualTo(201);
    assertThat(orders()).as("orders").isOne();
    assertThat(outbox()).as("outbox rows").isOne();
  }

  /** API, after commit, before the response: the retry gets the stored response. */
  void crashAfterCommit(Function<Once, RequestKeys> keys, FaultInjector faults, String key) {
    serve(faults, keys);
    assertThat(post(key, "{}").statusCode()).as("the crashed request").isEqualTo(500);
    assertThat(faults.crashes().get(CrashPoint.API_AFTER_COMMIT_BEFORE_RESPONSE)).isOne();
    assertThat(orders()).as("orders committed before the crash").isOne();

    HttpResponse<byte[]> retry = post(key, "{}");
    assertThat(retry.statusCode()).as("the retry").isEqualTo(201);
    assertThat(replayed(retry)).as("replayed").isTrue();
    assertThat(orders()).as("orders").isOne();
    assertThat(outbox()).as("outbox rows").isOne();
  }

  /** 8 clients, one key, at once: one order, one event; the others 409 or the stored response. */
  void eightClientsAtOnce(Function<Once, RequestKeys> keys) throws Exception {
    serve(new OnceListener() {}, keys);
    String key = newKey();
    int n = 8;
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      List<Future<HttpResponse<byte[]>>> sent = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        sent.add(
            pool.submit(
                () -> {
                  go.await();
                  return post(key, "{\"sku\":\"lamp\"}", "X-Test-Sleep-Ms", "300");
                }));
      }
      go.countDown();
      List<HttpResponse<byte[]>> answers = new ArrayList<>();
      for (Future<HttpResponse<byte[]>> f : sent) {
        answers.add(f.get(120, TimeUnit.SECONDS));
      }
      assertThat(answers.stream().filter(r -> r.statusCode() == 201 && !replayed(r)))
          .as("requests that ran")
          .hasSize(1);
      assertThat(answers)
          .allMatch(r -> r.statusCode() == 409 || (r.statusCode() == 201))
          .as("the others: 409 or the stored response");
      assertThat(orders()).as("orders").isOne();
      assertThat(outbox()).as("outbox rows").isOne();
    } finally {
      pool.shutdownNow();
    }
  }

  static RequestKeys correct(Once once) {
    return once.requestKeys().build();
  }

  @Test
  void aCrashBeforeTheCommitLeavesNothingAndTheRetryRunsOnce() {
    String key = newKey();
    crashBeforeCommit(
        WebContract::correct, FaultInjector.once(CrashPoint.API_BEFORE_COMMIT, scoped(key)), key);
  }

  @Test
  void aCrashAfterTheCommitLeavesTheResponseForTheRetry() {
    String key = newKey();
    crashAfterCommit(
        WebContract::correct,
        FaultInjector.once(CrashPoint.API_AFTER_COMMIT_BEFORE_RESPONSE, scoped(key)),
        key);
  }

  @Test
  void eightClientsSendingOneKeyAtOnceMakeOneOrderAndOneEvent() throws Exception {
    eightClientsAtOnce(WebContract::correct);
  }

  @Test
  void theConcurrencyTestCatchesAFilterThatChecksBeforeItInserts() {
    assertThatThrownBy(
            () ->
                eightClientsAtOnce(
                    o ->
                        BrokenRequestKeys.checkThenInsert(
                            o, db.dataSource(), db.dialect().requestKeys(), new OnceListener() {})))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("requests that ran");
  }

  @Test
  void theCrashTestCatchesAKeyCommittedInItsOwnTransaction() {
    String key = newKey();
    FaultInjector faults = FaultInjector.once(CrashPoint.API_BEFORE_COMMIT, scoped(key));
    assertThatThrownBy(
            () ->
                crashBeforeCommit(
                    o ->
                        BrokenRequestKeys.keyInItsOwnTransaction(
                            o, db.dataSource(), db.dialect().requestKeys(), faults),
                    faults,
                    key))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("the retry");
  }
}
