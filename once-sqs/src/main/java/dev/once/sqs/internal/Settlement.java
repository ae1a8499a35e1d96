package dev.once.sqs.internal;

import dev.once.sqs.SqsSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequest;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;

/**
 * Every delete and visibility change of one receiver's messages, and what it holds: the messages
 * received and not yet settled, each with the time its invisibility runs out. Deletes ({@code
 * DeleteMessageBatch}) come only from {@link #delete}, after the database commit; a delete SQS
 * refuses (an expired receipt handle: the message was received again elsewhere) is logged, and the
 * message comes back to be a {@code DUPLICATE}. {@link #extend} keeps held messages invisible while
 * their batch runs, never past the 12 hours SQS allows from a receive.
 *
 * <p>It holds a message by its SQS message id, with the receipt handle of its latest receive: a
 * standard queue may hand a message it has already handed to this receiver out again (at least
 * once), and SQS deletes or changes the visibility of a message only with the receipt handle of its
 * most recent receive. Such a second receive is not handed to a worker a second time ({@link
 * #received} says so); the delivery the worker already has is settled with the newest handle.
 */
final class Settlement {
  private static final Logger log = LoggerFactory.getLogger(Settlement.class);
  private static final long MAX_SECONDS = SqsSettings.MAX_VISIBILITY.toSeconds();

  private final SqsAsyncClient client;
  private final SqsSettings settings;
  private final String url;
  private final Map<String, Held> held = new ConcurrentHashMap<>();
  private final Set<CompletableFuture<Void>> pending = ConcurrentHashMap.newKeySet();

  /** A message held, as of its latest receive. */
  private static final class Held {
    final SqsHandle handle;
    volatile long invisibleUntil;
    volatile boolean capped;

    Held(SqsHandle handle, long invisibleUntil) {
      this.handle = handle;
      this.invisibleUntil = invisibleUntil;
    }
  }

  Settlement(SqsAsyncClient client, SqsSettings settings, String url) {
    this.client = client;
    this.settings = settings;
    this.url = url;
  }

  /**
   * Holds a message just received.
   *
   * @return false if it was held already: SQS handed it out again, and it is now held with the
   *     handle of the later of the two receives (the one its delete must name: the higher receive
   *     count, as the answers of two receives under way may arrive in either order), but must not
   *     reach a worker a second time
   */
  boolean received(SqsHandle h) {
    boolean[] again = {false};
    held.compute(
        h.heldKey(),
        (id, before) -> {
          again[0] = before != null;
          if (before != null && before.handle.receiveCount() > h.receiveCount()) {
            return before;
          }
          return new Held(h, h.receivedNanos() + settings.visibilityTimeout().toNanos());
        });
    return !again[0];
  }

  /**
   * The handles to settle {@code handles}' messages with, no longer held: each one's latest receive
   * (a message received again while held is settled with the newer handle).
   */
  private List<SqsHandle> release(List<SqsHandle> handles) {
    List<SqsHandle> latest = new ArrayList<>(handles.size());
    for (SqsHandle h : handles) {
      Held was = held.remove(h.heldKey());
      latest.add(was == null ? h : was.handle);
    }
    return latest;
  }

  /** Deletes the messages (after the commit). Does not wait. */
  CompletableFuture<Void> delete(List<SqsHandle> handles) {
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    for (List<SqsHandle> chunk : chunks(release(handles))) {
      List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>();
      for (int i = 0; i < chunk.size(); i++) {
        entries.add(
            DeleteMessageBatchRequestEntry.builder()
                .id(Integer.toString(i))
                .receiptHandle(chunk.get(i).receipt())
                .build());
      }
      calls.add(
          client
              .deleteMessageBatch(
                  DeleteMessageBatchRequest.builder().queueUrl(url).entries(entries).build())
              .handle(
                  (r, e) -> {
                    if (e != null) {
                      log.info(
                          "delete of {} messages from {} failed, they will come back and be"
                              + " DUPLICATEs: {}",
                          chunk.size(),
                          url,
                          e.toString());
                    } else {
                      r.failed().forEach(f -> refused("delete", chunk, f));
                    }
                    return null;
                  }));
    }
    return track(CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)));
  }

  /** Keeps {@code f} until it completes, so that {@link #returnAll} can wait for it. */
  private CompletableFuture<Void> track(CompletableFuture<Void> f) {
    pending.add(f);
    f.whenComplete((r, e) -> pending.remove(f));
    return f;
  }

  /** Makes the messages visible again after {@code delay} (0: at once). Does not wait. */
  CompletableFuture<Void> returnAfter(List<SqsHandle> handles, Duration delay) {
    return track(
        changeVisibility(release(handles), delay.toSeconds() + (delay.toNanosPart() > 0 ? 1 : 0)));
  }

  /**
   * Returns every message still held, at once, and waits (at most the request timeout) for that and
   * for the deletes and returns still under way, so that a client closed next loses none.
   */
  void returnAll() {
    List<SqsHandle> all = held.values().stream().map(h -> h.handle).toList();
    held.clear();
    pending.add(changeVisibility(all, 0));
    try {
      CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
          .get(settings.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      // they come back when their visibility timeout runs out
    }
  }

  /**
   * Extends the invisibility of every held message whose invisibility has less than half the
   * visibility timeout left, to a full visibility timeout, capped at 12 hours from its receive.
   */
  void extend(long now) {
    long half = settings.visibilityTimeout().toNanos() / 2;
    List<SqsHandle> due = new ArrayList<>();
    long seconds = settings.visibilityTimeout().toSeconds();
    for (Held h : held.values()) {
      if (h.invisibleUntil - now < half && !h.capped) {
        long left = MAX_SECONDS - (now - h.handle.receivedNanos()) / 1_000_000_000L - 1;
        if (left <= seconds) {
          h.capped = true;
          log.warn(
              "message {} has been held for almost 12 hours, SQS's limit: it will come back",
              h.handle.messageId());
          if (left <= 0) {
            continue;
          }
        }
        h.invisibleUntil = now + Math.min(seconds, left) * 1_000_000_000L;
        due.add(h.handle);
      }
    }
    if (!due.isEmpty()) {
      changeVisibility(due, seconds);
    }
  }

  private CompletableFuture<Void> changeVisibility(List<SqsHandle> handles, long seconds) {
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    long now = System.nanoTime();
    for (List<SqsHandle> chunk : chunks(handles)) {
      List<ChangeMessageVisibilityBatchRequestEntry> entries = new ArrayList<>();
      for (int i = 0; i < chunk.size(); i++) {
        long age = (now - chunk.get(i).receivedNanos()) / 1_000_000_000L;
        entries.add(
            ChangeMessageVisibilityBatchRequestEntry.builder()
                .id(Integer.toString(i))
                .receiptHandle(chunk.get(i).receipt())
                .visibilityTimeout((int) Math.max(0, Math.min(seconds, MAX_SECONDS - age - 1)))
                .build());
      }
      calls.add(
          client
              .changeMessageVisibilityBatch(
                  ChangeMessageVisibilityBatchRequest.builder()
                      .queueUrl(url)
                      .entries(entries)
                      .build())
              .handle(
                  (r, e) -> {
                    if (e != null) {
                      log.debug("visibility change of {} messages failed: {}", chunk.size(), e);
                    } else {
                      r.failed().forEach(f -> refused("visibility change", chunk, f));
                    }
                    return null;
                  }));
    }
    return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new));
  }

  private void refused(String what, List<SqsHandle> chunk, BatchResultErrorEntry f) {
    log.info(
        "{} of message {} refused by SQS ({}): it comes back when its visibility runs out and is"
            + " then a DUPLICATE if it was processed",
        what,
        chunk.get(Integer.parseInt(f.id())).messageId(),
        f.code());
  }

  private static List<List<SqsHandle>> chunks(List<SqsHandle> handles) {
    List<List<SqsHandle>> chunks = new ArrayList<>();
    for (int i = 0; i < handles.size(); i += 10) {
      chunks.add(handles.subList(i, Math.min(handles.size(), i + 10)));
    }
    return chunks;
  }
}
