package dev.once.bench.e2e;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/**
 * Amazon SQS through the AWS SDK's async client directly, the bench's client Once's transport runs
 * on too: a queue per (destination, group) made for this run and deleted after it (FIFO queues on
 * {@code sqs-fifo}: the key as {@code MessageGroupId}, the id as {@code MessageDeduplicationId}, as
 * Once's); a relay sends a batch to every queue of its destination with {@code SendMessageBatch},
 * 10 entries a call, every call at once, and waits for them all; a worker keeps two long polls
 * going (10 messages a receive, as Once's receiver does) into a buffer its polls take from, and
 * deletes with {@code DeleteMessageBatch} after the database commit, without waiting. The id, type
 * and key travel as message attributes, as Once's do.
 */
final class HandSqs implements HandBroker {
  /** Long polls a worker keeps going: Once's {@code receivesInFlight} default. */
  static final int RECEIVES_IN_FLIGHT = 2;

  private final SqsAsyncClient client;
  private final boolean fifo;
  private final String run = Long.toHexString(System.nanoTime());
  private final Map<String, List<String>> queuesOf = new ConcurrentHashMap<>();
  private final Map<String, String> urls = new ConcurrentHashMap<>();

  /** On {@code client} (the bench's: it stays open), FIFO queues if {@code fifo}. */
  HandSqs(SqsAsyncClient client, boolean fifo) {
    this.client = client;
    this.fifo = fifo;
  }

  private String name(String destination, String group) {
    return "once-bench-c-" + destination + "-" + group + "-" + run + (fifo ? ".fifo" : "");
  }

  @Override
  public void declare(String destination, String group) {
    String name = name(destination, group);
    urls.computeIfAbsent(
        name,
        n -> {
          Map<QueueAttributeName, String> attributes =
              fifo ? Map.of(QueueAttributeName.FIFO_QUEUE, "true") : Map.of();
          String url =
              client.createQueue(b -> b.queueName(n).attributes(attributes)).join().queueUrl();
          queuesOf.computeIfAbsent(destination, d -> new CopyOnWriteArrayList<>()).add(url);
          return url;
        });
  }

  @Override
  public void purge(String destination, String group) {
    // every run has queues of its own
  }

  @Override
  public Publisher publisher() {
    return new Publisher() {
      @Override
      public void publishConfirmed(List<Msg> batch) {
        List<CompletableFuture<SendMessageBatchResponse>> calls = new ArrayList<>();
        for (Map.Entry<String, List<Msg>> d : byDestination(batch).entrySet()) {
          for (String url : queuesOf.getOrDefault(d.getKey(), List.of())) {
            List<Msg> msgs = d.getValue();
            for (int i = 0; i < msgs.size(); i += 10) {
              List<SendMessageBatchRequestEntry> entries = new ArrayList<>();
              for (int j = i; j < Math.min(msgs.size(), i + 10); j++) {
                entries.add(entry(j - i, msgs.get(j)));
              }
              calls.add(client.sendMessageBatch(b -> b.queueUrl(url).entries(entries)));
            }
          }
        }
        for (CompletableFuture<SendMessageBatchResponse> c : calls) {
          if (!c.join().failed().isEmpty()) {
            throw new IllegalStateException("ceiling C: SQS refused " + c.join().failed());
          }
        }
      }

      @Override
      public void close() {}
    };
  }

  private static Map<String, List<Msg>> byDestination(List<Msg> batch) {
    Map<String, List<Msg>> out = new java.util.LinkedHashMap<>();
    batch.forEach(m -> out.computeIfAbsent(m.destination(), d -> new ArrayList<>()).add(m));
    return out;
  }

  private SendMessageBatchRequestEntry entry(int id, Msg m) {
    SendMessageBatchRequestEntry.Builder b =
        SendMessageBatchRequestEntry.builder()
            .id(Integer.toString(id))
            .messageBody(new String(m.payload(), StandardCharsets.UTF_8))
            .messageAttributes(
                Map.of("id", text(m.id()), "type", text(m.type()), "key", text(m.key())));
    if (fifo) {
      b.messageGroupId(m.key()).messageDeduplicationId(m.id());
    }
    return b.build();
  }

  private static MessageAttributeValue text(String v) {
    return MessageAttributeValue.builder().dataType("String").stringValue(v).build();
  }

  @Override
  public HandReceiver receiver(String destination, String group) {
    return new Receiver(destination, urls.get(name(destination, group)));
  }

  /** One worker's receiver: two long polls going into a buffer, as Once's {@code SqsReceiver}. */
  private final class Receiver implements HandReceiver {
    private final String destination;
    private final String url;
    private final LinkedBlockingQueue<Msg> buffer = new LinkedBlockingQueue<>();
    private final AtomicInteger receiving = new AtomicInteger();
    private volatile boolean closed;

    Receiver(String destination, String url) {
      this.destination = destination;
      this.url = url;
    }

    @Override
    public List<Msg> poll(int max, long waitMillis) throws InterruptedException {
      receiveMore();
      List<Msg> got = new ArrayList<>();
      Msg first = buffer.poll(waitMillis, TimeUnit.MILLISECONDS);
      if (first != null) {
        got.add(first);
        buffer.drainTo(got, max - 1);
      }
      receiveMore();
      return got;
    }

    private void receiveMore() {
      while (!closed && buffer.size() < 10 * RECEIVES_IN_FLIGHT) {
        int n = receiving.get();
        if (n >= RECEIVES_IN_FLIGHT) {
          return;
        }
        if (receiving.compareAndSet(n, n + 1)) {
          client
              .receiveMessage(
                  b ->
                      b.queueUrl(url)
                          .maxNumberOfMessages(10)
                          .waitTimeSeconds(20)
                          .messageAttributeNames("All"))
              .whenComplete(
                  (r, e) -> {
                    receiving.decrementAndGet();
                    if (r != null) {
                      r.messages().forEach(m -> buffer.add(msg(m)));
                      if (!r.messages().isEmpty()) {
                        receiveMore();
                      }
                    }
                  });
        }
      }
    }

    private Msg msg(Message m) {
      Map<String, MessageAttributeValue> a = m.messageAttributes();
      return new Msg(
          a.get("id").stringValue(),
          destination,
          a.get("key").stringValue(),
          a.get("type").stringValue(),
          m.body().getBytes(StandardCharsets.UTF_8),
          m.receiptHandle());
    }

    @Override
    public void ack(List<Msg> messages) {
      for (int i = 0; i < messages.size(); i += 10) {
        List<DeleteMessageBatchRequestEntry> entries = new ArrayList<>();
        for (int j = i; j < Math.min(messages.size(), i + 10); j++) {
          entries.add(
              DeleteMessageBatchRequestEntry.builder()
                  .id(Integer.toString(j - i))
                  .receiptHandle((String) messages.get(j).handle())
                  .build());
        }
        client.deleteMessageBatch(b -> b.queueUrl(url).entries(entries));
      }
    }

    @Override
    public void close() {
      closed = true; // its queue is deleted with the run: what the polls still bring is dropped
    }
  }

  @Override
  public void close() {
    for (String url : urls.values()) {
      try {
        client.deleteQueue(b -> b.queueUrl(url)).join();
      } catch (RuntimeException ignored) {
        // the bench is ending; the queues carry this run's id
      }
    }
  }
}
