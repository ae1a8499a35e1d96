package dev.once.bench.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * Ceiling B for Amazon SQS: the broker alone, no database. {@code relays} publishers each keep up
 * to {@code relayBatch} messages unconfirmed ({@code SendMessageBatch} calls of 10, a sliding
 * window) into one queue made for the run (FIFO on {@code sqs-fifo}: the order id as {@code
 * MessageGroupId}, the event id as {@code MessageDeduplicationId}, as Once sends them), and never
 * more than {@code relays × relayBatch} messages in the queue, as Once's relays have at most that
 * many unconfirmed (ElasticMQ's receives slow down as its queue grows: a backlog sent all at once
 * made B slower than the whole pipeline); {@code workers} receivers keep two long polls of 10
 * going, as Once's do, and delete what each brings with {@code DeleteMessageBatch}. Done when every
 * message's delete has been answered.
 */
final class CeilingSqs {
  private CeilingSqs() {}

  static double run(SqsAsyncClient client, boolean fifo, BenchSettings s) throws Exception {
    String name = "once-bench-b-" + Long.toHexString(System.nanoTime()) + (fifo ? ".fifo" : "");
    Map<QueueAttributeName, String> attributes =
        fifo ? Map.of(QueueAttributeName.FIFO_QUEUE, "true") : Map.of();
    String url =
        client.createQueue(b -> b.queueName(name).attributes(attributes)).join().queueUrl();
    try {
      CountDownLatch done = new CountDownLatch(1);
      AtomicLong deleted = new AtomicLong();
      AtomicReference<Throwable> failed = new AtomicReference<>();
      long start = System.nanoTime();
      Semaphore inQueue = new Semaphore(s.relays() * s.relayBatch());
      List<Worker> workers = new ArrayList<>();
      for (int i = 0; i < s.workers(); i++) {
        Worker w = new Worker(client, url, s.events(), deleted, done, failed, inQueue);
        workers.add(w);
        w.receiveMore();
      }
      AtomicLong next = new AtomicLong(1);
      Threads.run(s.relays(), i -> publish(client, url, fifo, s, next, inQueue));
      boolean finished = done.await(s.timeoutSeconds(), TimeUnit.SECONDS);
      workers.forEach(w -> w.stopped = true);
      if (failed.get() != null) {
        throw new IllegalStateException("ceiling B: " + failed.get(), failed.get());
      }
      if (!finished) {
        throw new IllegalStateException(
            "ceiling B: only " + deleted.get() + " of " + s.events() + " deleted in time");
      }
      return s.events() / ((System.nanoTime() - start) / 1e9);
    } finally {
      client.deleteQueue(b -> b.queueUrl(url)).exceptionally(e -> null).join();
    }
  }

  private static void publish(
      SqsAsyncClient client,
      String url,
      boolean fifo,
      BenchSettings s,
      AtomicLong next,
      Semaphore inQueue)
      throws Exception {
    int calls = Math.max(1, s.relayBatch() / 10);
    Semaphore window = new Semaphore(calls);
    AtomicReference<Throwable> failed = new AtomicReference<>();
    while (failed.get() == null) {
      long first = next.getAndAdd(10);
      if (first > s.events()) {
        break;
      }
      List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
      for (long id = first; id < first + 10 && id <= s.events(); id++) {
        entries.add(entry(id, fifo, entries.size()));
      }
      window.acquire();
      inQueue.acquire(entries.size()); // released when their deletes are answered
      client
          .sendMessageBatch(b -> b.queueUrl(url).entries(entries))
          .whenComplete(
              (r, e) -> {
                if (e != null) {
                  failed.compareAndSet(null, e);
                } else if (!r.failed().isEmpty()) {
                  failed.compareAndSet(null, new IllegalStateException("refused " + r.failed()));
                }
                window.release();
              });
    }
    window.acquire(calls); // every call answered
    if (failed.get() != null) {
      throw new IllegalStateException("ceiling B: a send failed: " + failed.get(), failed.get());
    }
  }

  private static SendMessageBatchRequestEntry entry(long id, boolean fifo, int index) {
    String eventId = "bench-paid:" + id;
    SendMessageBatchRequestEntry.Builder b =
        SendMessageBatchRequestEntry.builder()
            .id(Integer.toString(index))
            .messageBody(Pipeline.payload(id))
            .messageAttributes(
                Map.of(
                    "once-event-id", text(eventId),
                    "once-type", text("BenchPaid"),
                    "once-key", text(Long.toString(id))));
    if (fifo) {
      b.messageGroupId(Long.toString(id)).messageDeduplicationId(eventId);
    }
    return b.build();
  }

  private static MessageAttributeValue text(String v) {
    return MessageAttributeValue.builder().dataType("String").stringValue(v).build();
  }

  /** A consumer: two long polls going; each answer's messages deleted at once. */
  private static final class Worker {
    private final SqsAsyncClient client;
    private final String url;
    private final long events;
    private final AtomicLong deleted;
    private final CountDownLatch done;
    private final AtomicReference<Throwable> failed;
    private final Semaphore inQueue;
    private final AtomicInteger receiving = new AtomicInteger();
    volatile boolean stopped;

    Worker(
        SqsAsyncClient client,
        String url,
        long events,
        AtomicLong deleted,
        CountDownLatch done,
        AtomicReference<Throwable> failed,
        Semaphore inQueue) {
      this.inQueue = inQueue;
      this.client = client;
      this.url = url;
      this.events = events;
      this.deleted = deleted;
      this.done = done;
      this.failed = failed;
    }

    void receiveMore() {
      while (!stopped && receiving.get() < HandSqs.RECEIVES_IN_FLIGHT) {
        int n = receiving.get();
        if (n < HandSqs.RECEIVES_IN_FLIGHT && receiving.compareAndSet(n, n + 1)) {
          client
              .receiveMessage(
                  b ->
                      b.queueUrl(url)
                          .maxNumberOfMessages(10)
                          .waitTimeSeconds(1)
                          .messageAttributeNames("All"))
              .whenComplete(
                  (r, e) -> {
                    receiving.decrementAndGet();
                    if (e != null) {
                      if (!stopped) {
                        failed.compareAndSet(null, e);
                        done.countDown();
                      }
                      return;
                    }
                    delete(r.messages());
                    receiveMore();
                  });
        }
      }
    }

    private void delete(List<Message> got) {
      if (got.isEmpty()) {
        return;
      }
      List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>();
      for (int i = 0; i < got.size(); i++) {
        entries.add(
            DeleteMessageBatchRequestEntry.builder()
                .id(Integer.toString(i))
                .receiptHandle(got.get(i).receiptHandle())
                .build());
      }
      client
          .deleteMessageBatch(b -> b.queueUrl(url).entries(entries))
          .whenComplete(
              (r, e) -> {
                if (e != null || !r.failed().isEmpty()) {
                  failed.compareAndSet(null, e != null ? e : new IllegalStateException("" + r));
                  done.countDown();
                } else {
                  inQueue.release(got.size());
                  if (deleted.addAndGet(got.size()) >= events) {
                    done.countDown();
                  }
                }
              });
    }
  }
}
