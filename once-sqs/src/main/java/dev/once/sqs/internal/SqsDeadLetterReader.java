package dev.once.sqs.internal;

import dev.once.spi.BrokerDeadLetter;
import dev.once.spi.BrokerDeadLetterReader;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;

/**
 * Reads a group queue's dead-letter queue (the target of its redrive policy) with {@code
 * ReceiveMessage}: what it reads stays invisible to others for {@link #HOLD} while this reader
 * holds it, {@link #acknowledge} deletes it, and closing makes what was read and not acknowledged
 * visible again at once. No dead-letter queue reads as empty.
 */
public final class SqsDeadLetterReader implements BrokerDeadLetterReader {
  /** How long a message read stays invisible: longer than a move of it takes. */
  static final int HOLD = 300;

  private final SqsAsyncClient client;
  private final Queues queues;
  private final String destination;
  private final String groupQueue;
  private final String url;
  private final Deque<Message> buffer = new ArrayDeque<>();
  private final Map<String, Message> held = new LinkedHashMap<>();
  private boolean drained;

  /** {@code url}: the dead-letter queue's, or null when the group queue has none. */
  public SqsDeadLetterReader(
      SqsAsyncClient client, Queues queues, String destination, String groupQueue, String url) {
    this.client = client;
    this.queues = queues;
    this.destination = destination;
    this.groupQueue = groupQueue;
    this.url = url;
    this.drained = url == null;
  }

  @Override
  public BrokerDeadLetter next() {
    if (buffer.isEmpty() && !drained) {
      // a long poll of a second: a short one samples only some of SQS's servers
      List<Message> got =
          queues
              .call(
                  "receive from " + url,
                  client.receiveMessage(
                      ReceiveMessageRequest.builder()
                          .queueUrl(url)
                          .maxNumberOfMessages(10)
                          .waitTimeSeconds(1)
                          .visibilityTimeout(HOLD)
                          .messageAttributeNames("All")
                          .messageSystemAttributeNames(MessageSystemAttributeName.ALL)
                          .build()))
              .messages();
      buffer.addAll(got);
      drained = got.isEmpty();
    }
    Message m = buffer.poll();
    if (m == null) {
      return null;
    }
    held.put(m.receiptHandle(), m);
    Map<MessageSystemAttributeName, String> system = m.attributes();
    int count = count(system.get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT));
    SqsHandle h = new SqsHandle(m.receiptHandle(), m.messageId(), System.nanoTime(), 1);
    return new BrokerDeadLetter(
        MessageCodec.decode(destination, m, count, h),
        groupQueue,
        "maxReceiveCount",
        null, // SQS does not say when it moved a message
        1);
  }

  private static int count(String c) {
    try {
      return c == null ? 1 : Math.max(1, Integer.parseInt(c));
    } catch (NumberFormatException e) {
      return 1;
    }
  }

  @Override
  public void acknowledge(BrokerDeadLetter message) {
    SqsHandle h = (SqsHandle) message.delivery().handle();
    queues.call(
        "delete from " + url,
        client.deleteMessage(b -> b.queueUrl(url).receiptHandle(h.receipt())));
    held.remove(h.receipt());
  }

  /**
   * Makes every message read and not acknowledged, and every one received and not read, visible.
   */
  @Override
  public void close() {
    List<Message> back = new ArrayList<>(held.values());
    back.addAll(buffer);
    held.clear();
    buffer.clear();
    for (int i = 0; i < back.size(); i += 10) {
      List<ChangeMessageVisibilityBatchRequestEntry> entries = new ArrayList<>();
      for (int j = i; j < Math.min(back.size(), i + 10); j++) {
        entries.add(
            ChangeMessageVisibilityBatchRequestEntry.builder()
                .id(Integer.toString(j - i))
                .receiptHandle(back.get(j).receiptHandle())
                .visibilityTimeout(0)
                .build());
      }
      try {
        queues.call(
            "return to " + url,
            client.changeMessageVisibilityBatch(b -> b.queueUrl(url).entries(entries)));
      } catch (RuntimeException e) {
        // they come back when their visibility runs out (HOLD)
      }
    }
  }
}
