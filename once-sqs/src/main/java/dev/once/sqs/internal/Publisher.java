package dev.once.sqs.internal;

import dev.once.BrokerUnavailableException;
import dev.once.ConfigurationException;
import dev.once.Event;
import dev.once.InvalidEventException;
import dev.once.spi.PublishResult;
import dev.once.sqs.SqsSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/**
 * The relay's side: each event of a batch goes to every group queue of its destination ({@link
 * Queues#bound}) with {@code SendMessageBatch}, up to 10 entries a call. A queue's entries are
 * split into lanes by key, at most {@code sendsInFlight} per queue: a lane's calls go one after the
 * other (so one key's events reach SQS in list order), the lanes run at once. An event is confirmed
 * when every queue took it; an entry SQS refuses ({@code SenderFault}) is its row's refusal, an
 * entry or call that failed on SQS's side or never got an answer its row's loss (sent again
 * uncharged). After a call failed, the rest of its lane is held back as lost, so that no later
 * event of a key overtakes it.
 */
public final class Publisher {
  /** An entry's fate. */
  private record Fate(boolean confirmed, boolean lost, String reason) {
    static final Fate OK = new Fate(true, false, null);

    static Fate refused(String reason) {
      return new Fate(false, false, reason);
    }

    static Fate lost(String reason) {
      return new Fate(false, true, reason);
    }
  }

  /** One message to one queue: event {@code index} of the batch. */
  private record Entry(int index, Event event, String url) {}

  private final SqsAsyncClient client;
  private final SqsSettings settings;
  private final Queues queues;

  public Publisher(SqsAsyncClient client, SqsSettings settings, Queues queues) {
    this.client = client;
    this.settings = settings;
    this.queues = queues;
  }

  public PublishResult publish(List<Event> batch, Duration timeout) {
    Map<Integer, Fate> early = new HashMap<>();
    Map<String, List<Entry>> byQueue = new LinkedHashMap<>();
    Map<String, List<Queues.Bound>> listed = new HashMap<>();
    for (int i = 0; i < batch.size(); i++) {
      Event e = batch.get(i);
      try {
        MessageCodec.check(e, settings.maxMessageBytes());
        List<Queues.Bound> bound = listed.computeIfAbsent(e.destination(), queues::bound);
        if (bound.isEmpty()) {
          early.put(
              i,
              Fate.refused(
                  "no consumer group is bound to destination '"
                      + e.destination()
                      + "' (no queue named "
                      + settings.destinationPrefix(e.destination())
                      + "<group>)"));
        }
        for (Queues.Bound b : bound) {
          byQueue.computeIfAbsent(b.url(), u -> new ArrayList<>()).add(new Entry(i, e, b.url()));
        }
      } catch (InvalidEventException | ConfigurationException bad) {
        early.put(i, Fate.refused(bad.getMessage()));
      } catch (BrokerUnavailableException down) {
        early.put(i, Fate.lost(down.getMessage()));
      }
    }
    List<Map<Entry, Fate>> results = new ArrayList<>();
    List<CompletableFuture<Void>> lanes = new ArrayList<>();
    for (List<Entry> entries : byQueue.values()) {
      for (List<Entry> lane : lanes(entries)) {
        Map<Entry, Fate> fates = new ConcurrentHashMap<>();
        results.add(fates);
        lanes.add(send(chunks(lane), 0, fates));
      }
    }
    await(lanes, timeout);
    return result(batch.size(), early, byQueue, results, timeout);
  }

  /** {@code event} to the one queue at {@code url} (a replay), with a fresh deduplication id. */
  public PublishResult publishTo(Event event, String url, Duration timeout) {
    MessageCodec.check(event, settings.maxMessageBytes());
    SendMessageBatchRequestEntry entry =
        MessageCodec.replayEntry(event, settings.fifo(), System.nanoTime());
    Entry e = new Entry(0, event, url);
    Map<Entry, Fate> fates = new ConcurrentHashMap<>();
    CompletableFuture<Void> f = call(url, List.of(e), List.of(entry), fates).thenApply(ok -> null);
    await(List.of(f), timeout);
    return result(1, Map.of(), Map.of(url, List.of(e)), List.of(fates), timeout);
  }

  /**
   * Entries of one queue by lane: one key's entries always in the same lane, in list order; the
   * keys packed in list order so that each lane but the last holds whole calls of 10 (a key's lane
   * chosen by hash left most calls part-full: 0.12 sends per event where 0.1 would do).
   */
  private List<List<Entry>> lanes(List<Entry> entries) {
    int calls = (entries.size() + 9) / 10;
    int n = Math.max(1, Math.min(settings.sendsInFlight(), calls));
    int perLane = 10 * ((calls + n - 1) / n);
    Map<Object, List<Entry>> byKey = new LinkedHashMap<>();
    for (Entry e : entries) {
      Object key = e.event().key() == null ? e.index() : e.event().key();
      byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(e);
    }
    List<List<Entry>> lanes = new ArrayList<>();
    List<Entry> lane = new ArrayList<>();
    lanes.add(lane);
    for (List<Entry> key : byKey.values()) {
      if (!lane.isEmpty() && lane.size() + key.size() > perLane && lanes.size() < n) {
        lane = new ArrayList<>();
        lanes.add(lane);
      }
      lane.addAll(key);
    }
    return lanes;
  }

  /** A lane in calls of at most 10 entries and {@code maxMessageBytes} together. */
  private List<List<Entry>> chunks(List<Entry> lane) {
    List<List<Entry>> chunks = new ArrayList<>();
    List<Entry> chunk = new ArrayList<>();
    int bytes = 0;
    for (Entry e : lane) {
      int size = MessageCodec.size(e.event());
      if (chunk.size() == 10 || (!chunk.isEmpty() && bytes + size > settings.maxMessageBytes())) {
        chunks.add(chunk);
        chunk = new ArrayList<>();
        bytes = 0;
      }
      chunk.add(e);
      bytes += size;
    }
    if (!chunk.isEmpty()) {
      chunks.add(chunk);
    }
    return chunks;
  }

  /** Sends chunk {@code i} of a lane, then the next; a failed call holds the rest back. */
  private CompletableFuture<Void> send(List<List<Entry>> chunks, int i, Map<Entry, Fate> fates) {
    if (i == chunks.size()) {
      return CompletableFuture.completedFuture(null);
    }
    List<Entry> chunk = chunks.get(i);
    List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
    for (int j = 0; j < chunk.size(); j++) {
      entries.add(MessageCodec.entry(Integer.toString(j), chunk.get(j).event(), settings.fifo()));
    }
    return call(chunk.get(0).url(), chunk, entries, fates)
        .thenCompose(
            ok -> {
              if (ok) {
                return send(chunks, i + 1, fates);
              }
              for (List<Entry> rest : chunks.subList(i + 1, chunks.size())) {
                rest.forEach(e -> fates.put(e, Fate.lost("held back behind a failed send")));
              }
              return CompletableFuture.completedFuture(null);
            });
  }

  /** One SendMessageBatch; true when the call itself got an answer. */
  private CompletableFuture<Boolean> call(
      String url,
      List<Entry> chunk,
      List<SendMessageBatchRequestEntry> entries,
      Map<Entry, Fate> fates) {
    CompletableFuture<SendMessageBatchResponse> sent;
    try {
      sent =
          client.sendMessageBatch(
              SendMessageBatchRequest.builder().queueUrl(url).entries(entries).build());
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    return sent.handle(
        (r, error) -> {
          if (error != null) {
            Fate f = failure(unwrap(error), chunk.get(0).event().destination());
            chunk.forEach(e -> fates.put(e, f));
            return false;
          }
          r.successful().forEach(s -> fates.put(chunk.get(Integer.parseInt(s.id())), Fate.OK));
          for (BatchResultErrorEntry bad : r.failed()) {
            String reason = "SQS refused it: " + bad.code() + " " + bad.message();
            fates.put(
                chunk.get(Integer.parseInt(bad.id())),
                Boolean.TRUE.equals(bad.senderFault()) ? Fate.refused(reason) : Fate.lost(reason));
          }
          return true;
        });
  }

  /**
   * A failed call: a missing queue is a loss (its destination's groups are listed again); a
   * client-side error SQS answered (4xx but throttling) is a refusal; anything else a loss.
   */
  private Fate failure(Throwable error, String destination) {
    if (error instanceof QueueDoesNotExistException) {
      queues.forget(destination);
      return Fate.lost("a group queue of '" + destination + "' is gone: " + error.getMessage());
    }
    if (error instanceof AwsServiceException s
        && s.statusCode() >= 400
        && s.statusCode() < 500
        && !s.isThrottlingException()) {
      return Fate.refused("SQS refused the call: " + s.getMessage());
    }
    return Fate.lost("no answer from SQS: " + error);
  }

  private static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  private static void await(List<CompletableFuture<Void>> lanes, Duration timeout) {
    try {
      CompletableFuture.allOf(lanes.toArray(CompletableFuture[]::new))
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      // whatever did not answer is counted lost below
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static PublishResult result(
      int size,
      Map<Integer, Fate> early,
      Map<String, List<Entry>> byQueue,
      List<Map<Entry, Fate>> results,
      Duration timeout) {
    Map<Entry, Fate> all = new HashMap<>();
    results.forEach(all::putAll);
    Map<Integer, Fate> worst = new HashMap<>(early);
    for (List<Entry> entries : byQueue.values()) {
      for (Entry e : entries) {
        Fate f = all.getOrDefault(e, Fate.lost("no answer from SQS within " + timeout));
        worst.merge(e.index(), f, Publisher::worse);
      }
    }
    BitSet confirmed = new BitSet();
    BitSet lost = new BitSet();
    Map<Integer, String> failures = new HashMap<>();
    for (int i = 0; i < size; i++) {
      Fate f = worst.getOrDefault(i, Fate.lost("not sent"));
      if (f.confirmed()) {
        confirmed.set(i);
      } else {
        failures.put(i, f.reason());
        if (f.lost()) {
          lost.set(i);
        }
      }
    }
    return new PublishResult(confirmed, failures, lost);
  }

  /** A refusal outweighs a loss, which outweighs a confirmation. */
  private static Fate worse(Fate a, Fate b) {
    if (!a.confirmed() && !a.lost()) {
      return a;
    }
    if (!b.confirmed() && !b.lost()) {
      return b;
    }
    return a.confirmed() ? b : a;
  }
}
