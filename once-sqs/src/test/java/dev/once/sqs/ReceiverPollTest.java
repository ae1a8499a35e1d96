package dev.once.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Event;
import dev.once.EventId;
import dev.once.spi.Delivery;
import dev.once.spi.Receiver;
import dev.once.sqs.internal.SqsReceiver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequest;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchResponse;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;

/**
 * What one poll of an SQS receiver gathers. SQS hands out at most 10 messages a receive, so 30
 * messages waiting (what a killed process left) come in over several receives. A receiver's first
 * poll lingers, as the consumer asks, until they are all in: one batch — one commit, and for
 * suspects of a crash one raise and one run — instead of one per receive. Before, the receiver
 * ignored the linger and the first poll returned what the first receive brought. And a poll listens
 * for the whole of its wait: before, once the long polls it started ended empty, no other began
 * until the next poll, and a message sent in between waited for it (a crashed batch's messages,
 * back after their visibility timeout, missed the first poll of the process that took over, which
 * then spent a transaction on an idle sweep).
 */
class ReceiverPollTest {

  @Test
  void aNewReceiversFirstPollLingersUntilWhatWaitsOverSeveralReceivesIsIn() throws Exception {
    String dest = "linger-" + System.nanoTime();
    try (SqsTransport transport = Sqs.transport().receivesInFlight(1).build()) {
      transport.declare(dest, "g");
      List<Event> events = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        events.add(Event.of(EventId.of("paid", i), dest, "k" + i, "T", "{}"));
      }
      assertThat(transport.publish(events, Duration.ofSeconds(10)).confirmed().cardinality())
          .isEqualTo(30);
      try (Receiver receiver = transport.receiver(dest, "g")) {
        // When: one poll of up to 32, lingering 5 s for more after the first
        List<Delivery> got = receiver.poll(32, Duration.ofSeconds(10), Duration.ofSeconds(5));
        // Then: all 30, in one batch, though no receive brings more than 10
        assertThat(got).hasSize(30);
        receiver.ack(got);
      }
    }
  }

  @Test
  void aPollListensForTheWholeOfItsWaitNotOnlyForItsFirstLongPoll() throws Exception {
    String dest = "listen-" + System.nanoTime();
    ExecutorService poller = Executors.newSingleThreadExecutor();
    try (SqsTransport transport = Sqs.transport().build()) {
      transport.declare(dest, "g");
      String url = Sqs.client().getQueueUrl(b -> b.queueName(dest + "__g")).join().queueUrl();
      CountDownLatch endedEmpty = new CountDownLatch(1);
      SqsSettings settings =
          Sqs.transport().receiveWait(Duration.ofSeconds(1)).receivesInFlight(1).settings();
      try (SqsReceiver receiver =
          new SqsReceiver(watching(endedEmpty), settings, dest, url, r -> {})) {
        Future<List<Delivery>> polled =
            poller.submit(() -> receiver.poll(10, Duration.ofSeconds(20)));
        // Given: the poll's first long poll (1 s) ended with nothing
        assertThat(endedEmpty.await(20, TimeUnit.SECONDS)).as("a long poll ended empty").isTrue();
        // When: a message arrives while the poll still waits
        transport.publish(
            List.of(Event.of(EventId.of("paid", 1), dest, "k", "T", "{}")), Duration.ofSeconds(10));
        // Then: that poll returns it (before, it returned nothing after its 20 s)
        List<Delivery> got = polled.get(15, TimeUnit.SECONDS);
        assertThat(got).hasSize(1);
        receiver.ack(got);
      }
    } finally {
      poller.shutdownNow();
    }
  }

  /**
   * The shared client, for what a receiver calls; counts down {@code endedEmpty} at an empty
   * receive.
   */
  private static SqsAsyncClient watching(CountDownLatch endedEmpty) {
    SqsAsyncClient c = Sqs.client();
    return new SqsAsyncClient() {
      @Override
      public CompletableFuture<ReceiveMessageResponse> receiveMessage(ReceiveMessageRequest r) {
        return c.receiveMessage(r)
            .whenComplete(
                (response, e) -> {
                  if (response != null && response.messages().isEmpty()) {
                    endedEmpty.countDown();
                  }
                });
      }

      @Override
      public CompletableFuture<DeleteMessageBatchResponse> deleteMessageBatch(
          DeleteMessageBatchRequest r) {
        return c.deleteMessageBatch(r);
      }

      @Override
      public CompletableFuture<ChangeMessageVisibilityBatchResponse> changeMessageVisibilityBatch(
          ChangeMessageVisibilityBatchRequest r) {
        return c.changeMessageVisibilityBatch(r);
      }

      @Override
      public String serviceName() {
        return c.serviceName();
      }

      @Override
      public void close() {}
    };
  }
}
