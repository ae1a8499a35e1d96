package dev.once.sqs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Event;
import dev.once.EventId;
import dev.once.spi.Delivery;
import dev.once.spi.Receiver;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.ChangeMessageVisibilityBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;

/**
 * A standard queue hands a message out again while a receiver still holds it (SQS delivers at least
 * once): here a client makes every message visible again right after its first receive, so the
 * receiver's next long poll brings it a second time, with a new receipt handle. The worker gets it
 * once, and its ack deletes it with the newest receipt handle — the only one SQS deletes with: the
 * message is gone. Before, the receiver handed the message out twice, and the delete with the first
 * handle was refused (it came back once more, a third {@code DUPLICATE}).
 */
class ReceivedAgainWhileHeldTest {

  @Test
  void aMessageReceivedAgainWhileHeldReachesTheWorkerOnceAndIsDeletedWithTheNewestReceipt()
      throws Exception {
    Map<String, Integer> receives = new ConcurrentHashMap<>();
    SqsAsyncClient again = visibleAgainAfterFirstReceive(Sqs.client(), receives);
    String dest = "again-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    Event event = Event.of(EventId.of("again", dest, 1), dest, "k", "Again", "{}");
    try (SqsTransport transport = Sqs.transport().client(again).build();
        SqsTransport plain = Sqs.transport().build()) {
      declareAndPublish(transport, event);
      List<Delivery> got = new ArrayList<>();
      try (Receiver r = transport.receiver(dest, "g")) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (receives.values().stream().mapToInt(Integer::intValue).sum() < 2) {
          assertThat(System.nanoTime()).as("received twice within 20 s").isLessThan(deadline);
          got.addAll(r.poll(10, Duration.ofMillis(100)));
        }
        got.addAll(r.poll(10, Duration.ofSeconds(1))); // what the second receive brought

        // Then: the worker got it once
        assertThat(got).hasSize(1);
        assertThat(got.get(0).event().id()).isEqualTo(event.id());
        r.ack(got);
      }
      // And: the ack deleted it: nothing comes back after the visibility timeout (3 s)
      try (Receiver r = plain.receiver(dest, "g")) {
        assertThat(r.poll(10, Duration.ofSeconds(5))).isEmpty();
      }
    }
  }

  /**
   * An SQS-compatible endpoint that answers a receive without the messages' ids: the receiver holds
   * each by its receipt handle instead, hands it to the worker and deletes it on the ack. Before,
   * the receiver failed on the missing id (a NullPointerException on the SDK's response thread) and
   * the message never reached the worker.
   */
  @Test
  void aMessageWithoutAnIdReachesTheWorkerAndIsDeleted() throws Exception {
    SqsAsyncClient withoutIds = withoutMessageIds(Sqs.client());
    String dest = "noid-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    Event event = Event.of(EventId.of("noid", dest, 1), dest, "k", "NoId", "{}");
    try (SqsTransport transport = Sqs.transport().client(withoutIds).build();
        SqsTransport plain = Sqs.transport().build()) {
      declareAndPublish(transport, event);
      List<Delivery> got = new ArrayList<>();
      try (Receiver r = transport.receiver(dest, "g")) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (got.isEmpty()) {
          assertThat(System.nanoTime()).as("delivered within 20 s").isLessThan(deadline);
          got.addAll(r.poll(10, Duration.ofMillis(100)));
        }
        assertThat(got).hasSize(1);
        assertThat(got.get(0).event().id()).isEqualTo(event.id());
        r.ack(got);
      }
      try (Receiver r = plain.receiver(dest, "g")) {
        assertThat(r.poll(10, Duration.ofSeconds(5))).as("deleted by the ack").isEmpty();
      }
    }
  }

  /** Declares {@code event}'s destination with the group {@code g} and publishes it, confirmed. */
  private static void declareAndPublish(SqsTransport transport, Event event) {
    transport.declare(event.destination(), "g");
    assertThat(transport.publish(List.of(event), Duration.ofSeconds(10)).confirmed().cardinality())
        .isEqualTo(1);
  }

  /** {@code client}, except that received messages come without their SQS message ids. */
  private static SqsAsyncClient withoutMessageIds(SqsAsyncClient client) {
    return afterEachReceive(
        client,
        (request, response) ->
            CompletableFuture.completedFuture(
                response.toBuilder()
                    .messages(
                        response.messages().stream()
                            .map(m -> m.toBuilder().messageId(null).build())
                            .toList())
                    .build()));
  }

  /**
   * {@code client}, except that each message is made visible again right after its first receive,
   * as SQS may hand a message out again; {@code receives} counts each message's receives.
   */
  private static SqsAsyncClient visibleAgainAfterFirstReceive(
      SqsAsyncClient client, Map<String, Integer> receives) {
    return afterEachReceive(
        client, (request, response) -> againIfFirst(client, request, response, receives));
  }

  /** {@code client}, each receive's answer passed through {@code then}; close leaves it open. */
  private static SqsAsyncClient afterEachReceive(
      SqsAsyncClient client,
      BiFunction<
              ReceiveMessageRequest,
              ReceiveMessageResponse,
              CompletableFuture<ReceiveMessageResponse>>
          then) {
    return (SqsAsyncClient)
        Proxy.newProxyInstance(
            SqsAsyncClient.class.getClassLoader(),
            new Class<?>[] {SqsAsyncClient.class},
            (proxy, method, args) -> {
              if (method.getName().equals("close")) {
                return null; // the shared client stays open
              }
              if (method.getName().equals("receiveMessage")
                  && args[0] instanceof ReceiveMessageRequest request) {
                return client
                    .receiveMessage(request)
                    .thenCompose(response -> then.apply(request, response));
              }
              try {
                return method.invoke(client, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  private static CompletableFuture<ReceiveMessageResponse> againIfFirst(
      SqsAsyncClient client,
      ReceiveMessageRequest request,
      ReceiveMessageResponse response,
      Map<String, Integer> receives) {
    List<ChangeMessageVisibilityBatchRequestEntry> first = new ArrayList<>();
    for (Message m : response.messages()) {
      if (receives.merge(m.messageId(), 1, Integer::sum) == 1) {
        first.add(
            ChangeMessageVisibilityBatchRequestEntry.builder()
                .id(Integer.toString(first.size()))
                .receiptHandle(m.receiptHandle())
                .visibilityTimeout(0)
                .build());
      }
    }
    if (first.isEmpty()) {
      return CompletableFuture.completedFuture(response);
    }
    return client
        .changeMessageVisibilityBatch(b -> b.queueUrl(request.queueUrl()).entries(first))
        .thenApply(done -> response);
  }
}
