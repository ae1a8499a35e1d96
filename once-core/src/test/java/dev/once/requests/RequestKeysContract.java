package dev.once.requests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.RequestFingerprint;
import dev.once.RequestKey;
import dev.once.RequestKeys;
import dev.once.RequestKeysBuilder;
import dev.once.RequestResult;
import dev.once.RequestResult.Status;
import dev.once.RequestWork;
import dev.once.SchemaMissingException;
import dev.once.StoredResponse;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import dev.once.testkit.SettableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Request keys on a real database: one commit holds the key, the response, the business change and
 * the outbox row. One subclass per database.
 */
abstract class RequestKeysContract {
  static final RequestKey KEY = RequestKey.of("client-a", "8e03978e-40d5-43e8-bc93-6894a57f9324");
  static final RequestFingerprint ORDER =
      RequestFingerprint.of("POST", "/orders", Map.of(), bytes("{\"sku\":\"lamp\"}"));

  /** Stands for the death of the API process at a crash window. */
  static final class Crash extends Error {
    private static final long serialVersionUID = 1L;

    Crash(String where) {
      super("simulated crash " + where, null, false, false);
    }
  }

  /** Crashes the next time a request reaches a window. */
  static final class CrashSwitch implements OnceListener {
    volatile boolean beforeCommit;
    volatile boolean afterCommit;

    @Override
    public void beforeRequestCommit(RequestKey key) {
      if (beforeCommit) {
        beforeCommit = false;
        throw new Crash("before the request's commit");
      }
    }

    @Override
    public void requestCommitted(RequestKey key) {
      if (afterCommit) {
        afterCommit = false;
        throw new Crash("after the commit, before the response is written");
      }
    }
  }

  abstract TestDatabase database();

  TestDatabase db;
  StatementLog log;
  final SettableClock clock = SettableClock.stoppedNow();
  final CrashSwitch crash = new CrashSwitch();
  final AtomicInteger runs = new AtomicInteger();
  Once once;

  @BeforeEach
  void start() {
    db = database();
    db.execute("CREATE TABLE orders (id VARCHAR(100) PRIMARY KEY, sku VARCHAR(100) NOT NULL)");
    log = new StatementLog(db.dataSource());
    once =
        Once.builder()
            .dataSource(log)
            .transport(TableQueueTransport.create(db.dataSource()))
            .destinations("orders")
            .clock(clock)
            .listener(crash)
            .build();
  }

  @AfterEach
  void stop() {
    once.close();
    db.close();
  }

  RequestKeys keys(UnaryOperator<RequestKeysBuilder> tweak) {
    return tweak.apply(once.requestKeys()).build();
  }

  RequestKeys keys() {
    return keys(b -> b);
  }

  /** The claims of a request key prepared so far: one per attempt of a request. */
  long claims() {
    return log.statements().stream().filter(q -> q.contains("INSERT INTO once_request")).count();
  }

  /** Creates an order and its event, answers 201 with the order's id. */
  RequestWork placeOrder(String orderId) {
    return tx -> {
      runs.incrementAndGet();
      tx.update("INSERT INTO orders (id, sku) VALUES (?, ?)", orderId, "lamp");
      tx.publish(
          Event.builder()
              .id(EventId.of("order-placed", orderId))
              .type("OrderPlaced")
              .destination("orders")
              .key(orderId)
              .payload("{\"order\":\"" + orderId + "\"}")
              .build());
      return created(orderId);
    };
  }

  static StoredResponse created(String orderId) {
    return StoredResponse.of(
        201,
        Map.of(
            "Content-Type", List.of("application/json"), "Location", List.of("/orders/" + orderId)),
        bytes("{\"id\":\"" + orderId + "\"}"));
  }

  long orders() {
    return db.count("SELECT count(*) FROM orders");
  }

  long outbox() {
    return db.count("SELECT count(*) FROM once_outbox");
  }

  long keysStored() {
    return db.count("SELECT count(*) FROM once_request");
  }

  @Test
  void aNewKeyRunsOnceAndARetryGetsTheStoredResponseWithoutRunning() {
    RequestKeys keys = keys();
    RequestResult first = keys.run(KEY, ORDER, placeOrder("o-1"));
    RequestResult second = keys.run(KEY, ORDER, placeOrder("o-2"));

    assertThat(first.status()).isEqualTo(Status.EXECUTED);
    assertThat(second.status()).isEqualTo(Status.REPLAYED);
    assertThat(second.response()).isEqualTo(first.response()).isEqualTo(created("o-1"));
    assertThat(runs).hasValue(1);
    assertThat(orders()).isOne();
    assertThat(outbox()).isOne();
    assertThat(keysStored()).isOne();
  }

  @Test
  void theSameKeyWithAnotherRequestIsAMismatchAndRunsNothing() {
    RequestKeys keys = keys();
    keys.run(KEY, ORDER, placeOrder("o-1"));
    RequestFingerprint other =
        RequestFingerprint.of("POST", "/orders", Map.of(), bytes("{\"sku\":\"desk\"}"));

    RequestResult r = keys.run(KEY, other, placeOrder("o-2"));

    assertThat(r.status()).isEqualTo(Status.FINGERPRINT_MISMATCH);
    assertThat(r.response()).isNull();
    assertThat(runs).hasValue(1);
    assertThat(orders()).isOne();
  }

  @Test
  void anotherClientsKeyNeverReplaysItsResponse() {
    RequestKeys keys = keys();
    keys.run(KEY, ORDER, placeOrder("o-1"));

    RequestResult b = keys.run(RequestKey.of("client-b", KEY.key()), ORDER, placeOrder("o-2"));

    assertThat(b.status()).isEqualTo(Status.EXECUTED);
    assertThat(b.response()).isEqualTo(created("o-2"));
    assertThat(orders()).isEqualTo(2);
  }

  @Test
  void keysAreCaseSensitive() {
    RequestKeys keys = keys();
    keys.run(RequestKey.of("client-a", "abc"), ORDER, placeOrder("o-1"));

    RequestResult upper = keys.run(RequestKey.of("client-a", "ABC"), ORDER, placeOrder("o-2"));

    assertThat(upper.status()).isEqualTo(Status.EXECUTED);
    assertThat(orders()).isEqualTo(2);
  }

  @Test
  void aThrowingHandlerRollsBackStoresNothingAndTheRetryRuns() {
    RequestKeys keys = keys();
    assertThatThrownBy(
            () ->
                keys.run(
                    KEY,
                    ORDER,
                    tx -> {
                      placeOrder("o-1").run(tx);
                      throw new IllegalStateException("stock service said no");
                    }))
        .hasMessageContaining("stock service said no");
    assertThat(keysStored()).isZero();
    assertThat(orders()).isZero();
    assertThat(outbox()).isZero();

    assertThat(keys.run(KEY, ORDER, placeOrder("o-1")).status()).isEqualTo(Status.EXECUTED);
    assertThat(orders()).isOne();
  }

  @Test
  void aCrashBeforeTheCommitLeavesNothingAndTheRetryRunsOnce() {
    RequestKeys keys = keys();
    crash.beforeCommit = true;
    assertThatThrownBy(() -> keys.run(KEY, ORDER, placeOrder("o-1"))).isInstanceOf(Crash.class);
    assertThat(keysStored()).isZero();
    assertThat(orders()).isZero();
    assertThat(outbox()).isZero();

    assertThat(keys.run(KEY, ORDER, placeOrder("o-1")).status()).isEqualTo(Status.EXECUTED);
    assertThat(keys.run(KEY, ORDER, placeOrder("o-1")).status()).isEqualTo(Status.REPLAYED);
    assertThat(orders()).isOne();
    assertThat(outbox()).isOne();
  }

  @Test
  void aCrashAfterTheCommitLeavesTheResponseForTheRetry() {
    RequestKeys keys = keys();
    crash.afterCommit = true;
    assertThatThrownBy(() -> keys.run(KEY, ORDER, placeOrder("o-1"))).isInstanceOf(Crash.class);

    RequestResult retry = keys.run(KEY, ORDER, placeOrder("o-2"));

    assertThat(retry.status()).isEqualTo(Status.REPLAYED);
    assertThat(retry.response()).isEqualTo(created("o-1"));
    assertThat(orders()).isOne();
    assertThat(outbox()).isOne();
  }

  @Test
  void aKeyHeldByAnOpenRequestIsInProgressAtOnceAndReplayedAfterItCommits() throws Exception {
    RequestKeys keys = keys();
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<RequestResult> first =
          pool.submit(
              () ->
                  keys.run(
                      KEY,
                      ORDER,
                      tx -> {
                        StoredResponse r = placeOrder("o-1").run(tx);
                        inside.countDown();
                        assertThat(release.await(30, TimeUnit.SECONDS)).isTrue();
                        return r;
                      }));
      assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();

      long t0 = System.nanoTime();
      RequestResult during = keys.run(KEY, ORDER, placeOrder("o-2"));
      long tookMs = (System.nanoTime() - t0) / 1_000_000;
      release.countDown();

      assertThat(during.status()).isEqualTo(Status.IN_PROGRESS);
      assertThat(tookMs).as("answered without waiting for the holder").isLessThan(5_000);
      assertThat(first.get(30, TimeUnit.SECONDS).status()).isEqualTo(Status.EXECUTED);
      assertThat(keys.run(KEY, ORDER, placeOrder("o-3")).status()).isEqualTo(Status.REPLAYED);
      assertThat(orders()).isOne();
    } finally {
      release.countDown();
      pool.shutdownNow();
    }
  }

  @Test
  void withMaxWaitARequestWaitsForTheHolderAndGetsItsResponse() throws Exception {
    RequestKeys keys = keys(b -> b.maxWait(Duration.ofSeconds(20)));
    CountDownLatch inside = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<RequestResult> first =
          pool.submit(
              () ->
                  keys.run(
                      KEY,
                      ORDER,
                      tx -> {
                        StoredResponse r = placeOrder("o-1").run(tx);
                        inside.countDown();
                        // the second request polls meanwhile: held until it claimed twice (its
                        // first answer was "in progress" and it asked again)
                        await().atMost(Duration.ofSeconds(30)).until(() -> claims() >= 3);
                        return r;
                      }));
      assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
      RequestResult waited = keys.run(KEY, ORDER, placeOrder("o-2"));

      assertThat(waited.status()).isEqualTo(Status.REPLAYED);
      assertThat(waited.response()).isEqualTo(first.get(30, TimeUnit.SECONDS).response());
      assertThat(orders()).isOne();
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void eightClientsSendingTheSameKeyAtOnceMakeOneOrderAndOneEvent() throws Exception {
    RequestKeys keys = keys();
    int n = 8;
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(n);
    try {
      List<Future<RequestResult>> results = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String orderId = "o-" + i;
        results.add(
            pool.submit(
                () -> {
                  go.await();
                  return keys.run(KEY, ORDER, placeOrder(orderId));
                }));
      }
      go.countDown();
      List<Status> statuses = new ArrayList<>();
      for (Future<RequestResult> f : results) {
        statuses.add(f.get(60, TimeUnit.SECONDS).status());
      }
      assertThat(statuses).containsOnlyOnce(Status.EXECUTED);
      assertThat(statuses).doesNotContain(Status.FINGERPRINT_MISMATCH);
      assertThat(orders()).isOne();
      assertThat(outbox()).isOne();
      assertThat(runs).hasValue(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aResponseOverTheCapIsRefusedAndNothingIsStored() {
    RequestKeys keys = keys(b -> b.maxResponseBytes(1024));
    assertThatThrownBy(
            () ->
                keys.run(
                    KEY,
                    ORDER,
                    tx -> {
                      placeOrder("o-1").run(tx);
                      return StoredResponse.of(200, Map.of(), new byte[1025]);
                    }))
        .hasMessageContaining("1025 bytes is over requestKeys.maxResponseBytes 1024");
    assertThat(keysStored()).isZero();
    assertThat(orders()).isZero();
  }

  @Test
  void anExpiredKeyIsDeletedAndARetryAfterThatRunsAgain() {
    RequestKeys keys = keys(b -> b.retention(Duration.ofHours(24)));
    keys.run(KEY, ORDER, placeOrder("o-1"));
    clock.advance(Duration.ofHours(23));
    assertThat(keys.deleteExpired()).isZero();
    clock.advance(Duration.ofHours(2));

    assertThat(keys.deleteExpired()).isOne();

    // the documented risk: a retry after the retention is a new request
    assertThat(keys.run(KEY, ORDER, placeOrder("o-2")).status()).isEqualTo(Status.EXECUTED);
    assertThat(orders()).isEqualTo(2);
  }

  @Test
  void aNewKeyCostsOneStatementBesidesTheKeyInsertAndAReplayTouchesNoBusinessTable() {
    RequestKeys keys = keys();
    log.clear();
    keys.run(KEY, ORDER, placeOrder("o-1"));
    List<String> newKey = onceRequestStatements(withoutWakeUps(log.statements()));
    log.clear();
    keys.run(KEY, ORDER, placeOrder("o-2"));
    List<String> replay = withoutWakeUps(log.statements());

    assertThat(newKey).hasSize(2); // the claim (the key insert) and the response's update
    assertThat(newKey.get(0)).contains("INSERT INTO once_request");
    assertThat(newKey.get(1)).startsWith("UPDATE once_request");
    assertThat(replay).hasSize(2).allMatch(s -> s.contains("once_request"));
    assertThat(replay).noneMatch(s -> s.contains("orders") || s.contains("once_outbox"));
  }

  @Test
  void buildingWithoutTheTableNamesIt() {
    db.execute("DROP TABLE once_request");
    assertThatThrownBy(this::keys)
        .isInstanceOf(SchemaMissingException.class)
        .hasMessageContaining("once_request");
  }

  /**
   * Without the relay's wake-up (PostgreSQL's NOTIFY), which Once's notifier sends on its own
   * connection after a commit that wrote outbox rows, whether or not request keys are used: it may
   * land in either list.
   */
  private static List<String> withoutWakeUps(List<String> all) {
    return all.stream().filter(s -> !s.contains("pg_notify")).toList();
  }

  /** What Once itself ran for the request: not the work's statements. */
  private static List<String> onceRequestStatements(List<String> all) {
    return all.stream()
        .filter(s -> !s.contains("INTO orders") && !s.contains("once_outbox"))
        .toList();
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
