package dev.once.bench.e2e;

import dev.once.sqs.SqsTransport;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;

/**
 * Amazon SQS through the AWS SDK's async client directly, the one Once's transport is configured
 * with (endpoint, region, credentials): a standard queue per (destination, group) made for this run
 * and deleted after it; a relay sends a batch to every queue of its destination with {@code
 * SendMessageBatch}, 10 entries a call, every call at once, and waits for them all; a worker
 * long-polls its queue (10 messages a receive) and deletes with {@code DeleteMessageBatch} after
 * the database commit. The id, type and key travel as message attributes, as Once's do.
 */
final class HandSqs implements HandBroker {
  private final SqsTransport transport; // for its client only: Once's settings, none of its code
  private final SqsAsyncClient client;
  private final String run = Long.toHexString(System.nanoTime());
  private final Map<String, List<String>> queuesOf = new ConcurrentHashMap<>();
  private final Map<String, String> urls = new ConcurrentHashMap<>();

  HandSqs(Supplier<SqsTransport.Builder> sqs) {
    this.transport = sqs.get().build();
    this.client = transport.client();
  }

  private String name(String destination, String group) {
    return "once-bench-c-" + destination + "-" + group + "-" + run;
  }

  @Override
  public void declare(String destination, String group) {
    String name = name(destination, group);
    urls.computeIfAbsent(
        name,
        n -> {
          String url = client.createQueue(b -> b.queueName(n)).join().queueUrl();
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

  private static SendMessageBatchRequestEntry entry(int id, Msg m) {
    return SendMessageBatchRequestEntry.builder()
        .id(Integer.toString(id))
        .messageBody(new String(m.payload(), StandardCharsets.UTF_8))
        .messageAttributes(Map.of("id", text(m.id()), "type", text(m.type()), "key", text(m.key())))
        .build();
  }

  private static MessageAttributeValue text(String v) {
    return MessageAttributeValue.builder().dataType("String").stringValue(v).build();
  }

  @Override
  public HandReceiver receiver(String destination, String group) {
    String url = urls.get(name(destination, group));
    return new HandReceiver() {
      @Override
      public List<Msg> poll(int max, long waitMillis) {
        List<Message> got =
            client
                .receiveMessage(
                    b ->
                        b.queueUrl(url)
                            .maxNumberOfMessages(Math.min(10, max))
                            .waitTimeSeconds(waitMillis >= 1000 ? 1 : 0)
                            .messageAttributeNames("All"))
                .join()
                .messages();
        List<Msg> out = new ArrayList<>(got.size());
        for (Message m : got) {
          Map<String, MessageAttributeValue> a = m.messageAttributes();
          out.add(
              new Msg(
                  a.get("id").stringValue(),
                  destination,
                  a.get("key").stringValue(),
                  a.get("type").stringValue(),
                  m.body().getBytes(StandardCharsets.UTF_8),
                  m.receiptHandle()));
        }
        return out;
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
      public void close() {}
    };
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
    transport.close();
  }
}
