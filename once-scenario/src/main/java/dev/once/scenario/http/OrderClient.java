package dev.once.scenario.http;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo's client: places each purchase with one {@code POST /orders}, its {@code
 * Idempotency-Key} chosen once per purchase, and retries with the same key after a cut, a timeout,
 * a 409 or a 5xx until it has a 201. {@link #retryingWithNewKeys} is the client that gets it wrong
 * (a fresh key per attempt), which the demo's check must catch.
 */
public final class OrderClient {
  /** Attempts per purchase before the client gives up (and the run fails). */
  static final int MAX_ATTEMPTS = 50;

  private final URI uri;
  private final boolean newKeyPerAttempt;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong cut = new AtomicLong();
  private final AtomicLong retries = new AtomicLong();
  private final AtomicLong replayed = new AtomicLong();

  private OrderClient(URI uri, boolean newKeyPerAttempt) {
    this.uri = uri;
    this.newKeyPerAttempt = newKeyPerAttempt;
  }

  public static OrderClient of(URI uri) {
    return new OrderClient(uri, false);
  }

  /** The broken client: every retry carries a key of its own. */
  public static OrderClient retryingWithNewKeys(URI uri) {
    return new OrderClient(uri, true);
  }

  /** What the client saw. */
  public record Counts(long requests, long cut, long retries, long replayed) {}

  public Counts counts() {
    return new Counts(requests.get(), cut.get(), retries.get(), replayed.get());
  }

  /** Places every purchase, {@code threads} at a time; returns when each got its 201. */
  public void placeAll(List<Long> purchases, int threads, Duration timeout)
      throws InterruptedException {
    AtomicInteger next = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      running.add(
          pool.submit(
              () -> {
                for (int i = next.getAndIncrement();
                    i < purchases.size();
                    i = next.getAndIncrement()) {
                  place(purchases.get(i));
                }
                return null;
              }));
    }
    pool.shutdown();
    if (!pool.awaitTermination(timeout.toSeconds(), TimeUnit.SECONDS)) {
      pool.shutdownNow();
    }
    for (Future<?> f : running) {
      try {
        f.get(0, TimeUnit.SECONDS);
      } catch (ExecutionException | TimeoutException e) {
        throw new IllegalStateException("the order client failed: " + e.getCause(), e);
      }
    }
  }

  /** Places one purchase; returns the 201's body. */
  public String place(long purchase) throws InterruptedException {
    String body = "{\"purchase\":" + purchase + "}";
    String lastProblem = "";
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      if (attempt > 1) {
        retries.incrementAndGet();
        Thread.sleep(Math.min(5L * attempt, 100));
      }
      String key = "purchase-" + purchase + (newKeyPerAttempt ? "-attempt-" + attempt : "");
      HttpRequest request =
          HttpRequest.newBuilder(uri)
              .timeout(Duration.ofSeconds(30))
              .header("Content-Type", "application/json")
              .header("Idempotency-Key", key)
              .POST(HttpRequest.BodyPublishers.ofString(body))
              .build();
      requests.incrementAndGet();
      HttpResponse<String> response;
      try {
        response = http.send(request, HttpResponse.BodyHandlers.ofString());
      } catch (IOException e) { // cut or timed out: the order may or may not be placed
        cut.incrementAndGet();
        lastProblem = e.toString();
        continue;
      }
      int status = response.statusCode();
      if (status == 201) {
        if (response.headers().firstValue(OrderApi.REPLAYED).orElse("").equals("true")) {
          replayed.incrementAndGet();
        }
        return response.body();
      }
      if (status != 409 && status < 500) {
        throw new IllegalStateException(
            "POST /orders for purchase " + purchase + ": HTTP " + status + " " + response.body());
      }
      lastProblem = "HTTP " + status + " " + response.body();
    }
    throw new IllegalStateException(
        "purchase "
            + purchase
            + " not placed after "
            + MAX_ATTEMPTS
            + " attempts; last: "
            + lastProblem);
  }
}
