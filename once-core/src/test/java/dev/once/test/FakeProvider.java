package dev.once.test;

import dev.once.LookupAnswer;
import dev.once.ProviderRejectedException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An in-process stand-in for a remote provider (only the provider is faked; the store is real). It
 * keeps a ledger of what it actually did — the ground truth of the tests — and, when idempotent,
 * deduplicates by key like Stripe: same key → the saved response, different body → refusal, same
 * key while running → an in-progress error, keys forgotten after the retention window.
 */
public final class FakeProvider {
  /** One action the provider really performed. */
  public record Action(String key, String request, String response) {}

  private record Saved(String request, String response, Instant at) {}

  private final boolean idempotent;
  private final Duration retention;
  private final Clock clock;
  private final List<Action> ledger = new ArrayList<>();
  private final Map<String, Saved> keys = new HashMap<>();
  private final Set<String> running = new HashSet<>();
  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicInteger dropResponses = new AtomicInteger();
  private volatile long delayMillis;

  public FakeProvider(boolean idempotent, Duration retention, Clock clock) {
    this.idempotent = idempotent;
    this.retention = retention;
    this.clock = clock;
  }

  public boolean isIdempotent() {
    return idempotent;
  }

  /** The next {@code n} calls are performed but their responses are lost. */
  public void dropResponses(int n) {
    dropResponses.set(n);
  }

  public void delay(long millis) {
    this.delayMillis = millis;
  }

  public String call(String key, String request) throws Exception {
    calls.incrementAndGet();
    if (idempotent) {
      String replay = replayOrStart(key, request);
      if (replay != null) {
        return replay;
      }
    }
    Thread.sleep(delayMillis);
    String response = perform(key, request);
    if (dropResponses.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new IOException("response lost after the provider acted");
    }
    return response;
  }

  private synchronized String replayOrStart(String key, String request) throws IOException {
    Saved saved = keys.get(key);
    if (saved != null && saved.at().plus(retention).isAfter(clock.instant())) {
      if (!saved.request().equals(request)) {
        throw new ProviderRejectedException("422 key reused with another body", "422");
      }
      return saved.response();
    }
    if (!running.add(key)) {
      throw new IOException("409 a request with this key is in progress");
    }
    return null;
  }

  private synchronized String perform(String key, String request) {
    String response = "done-" + (ledger.size() + 1);
    ledger.add(new Action(key, request, response));
    if (idempotent) {
      keys.put(key, new Saved(request, response, clock.instant()));
      running.remove(key);
    }
    return response;
  }

  /** Lookup by key in the provider's own ledger (which, unlike keys, is kept forever). */
  public synchronized LookupAnswer lookup(String key, String operationId) {
    return ledger.stream()
        .filter(a -> a.key().equals(key))
        .findFirst()
        .map(a -> LookupAnswer.found(a.response()))
        .orElse(LookupAnswer.notFound());
  }

  public synchronized List<Action> ledger() {
    return List.copyOf(ledger);
  }

  /** How many times the provider performed {@code request}: the number that must be 1. */
  public synchronized long performed(String request) {
    return ledger.stream().filter(a -> a.request().equals(request)).count();
  }

  public int calls() {
    return calls.get();
  }
}
