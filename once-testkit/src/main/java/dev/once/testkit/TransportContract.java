package dev.once.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.once.Event;
import dev.once.EventId;
import dev.once.spi.Delivery;
import dev.once.spi.ForwardingTransport;
import dev.once.spi.PublishResult;
import dev.once.spi.Receiver;
import dev.once.spi.Transport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every transport must have, as tests. Subclass it with a few lines that hand out the
 * transport under test and a database with Once's schema (gruelbox's AbstractAcceptanceTest style);
 * a transport is complete when its subclass passes. The full-pipeline tests live in {@link
 * PipelineContract}.
 */
public abstract class TransportContract extends PipelineContract {
  private static final Duration CONFIRM = Duration.ofSeconds(10);

  @Test
  void aConfirmedEventArrivesWithItsIdKeyTypePayloadAndHeaders() throws Exception {
    String dest = unique("dest");
    transport().declare(dest, "g");
    Event sent =
        new Event(
            EventId.of("order-paid", UUID.randomUUID()),
            dest,
            "order-7",
            "OrderPaid",
            "{\"total\":12}".getBytes(StandardCharsets.UTF_8),
            Map.of("content-type", "application/json", "trace", "abc"));
    assertConfirmed(transport().publish(List.of(sent), CONFIRM), 1);
    try (Receiver r = transport().receiver(dest, "g")) {
      Delivery d = receive(r, 1, redeliveryWait()).get(0);
      assertEquals(sent, d.event());
      assertEquals(1, d.deliveryCount());
      assertFalse(d.redelivered());
      r.ack(List.of(d));
    }
  }

  @Test
  void anUnacknowledgedDeliveryComesBackAfterTheReceiverIsClosed() throws Exception {
    String dest = unique("dest");
    transport().declare(dest, "g");
    assertConfirmed(transport().publish(List.of(event(dest, 1)), CONFIRM), 1);
    try (Receiver first = transport().receiver(dest, "g")) {
      assertEquals(1, receive(first, 1, redeliveryWait()).size());
    } // closed without ack: a crash
    try (Receiver second = transport().receiver(dest, "g")) {
      Delivery again = receive(second, 1, redeliveryWait()).get(0);
      assertEquals(event(dest, 1).id(), again.event().id());
      assertTrue(again.redelivered(), "redelivered flag");
      assertTrue(again.deliveryCount() >= 2, "delivery count " + again.deliveryCount());
      second.ack(List.of(again));
    }
  }

  @Test
  void acknowledgedDeliveriesDoNotComeBack() throws Exception {
    String dest = unique("dest");
    transport().declare(dest, "g");
    List<Event> batch = List.of(event(dest, 1), event(dest, 2), event(dest, 3));
    assertConfirmed(transport().publish(batch, CONFIRM), 3);
    try (Receiver r = transport().receiver(dest, "g")) {
      r.ack(receive(r, 3, redeliveryWait()));
    }
    try (Receiver r = transport().receiver(dest, "g")) {
      assertEquals(List.of(), r.poll(10, redeliveryWait()));
    }
  }

  @Test
  void aNackedDeliveryComesBack() throws Exception {
    String dest = unique("dest");
    transport().declare(dest, "g");
    assertConfirmed(transport().publish(List.of(event(dest, 1)), CONFIRM), 1);
    try (Receiver r = transport().receiver(dest, "g")) {
      r.nack(receive(r, 1, redeliveryWait()), Duration.ofMillis(100));
      Delivery again = receive(r, 1, redeliveryWait()).get(0);
      assertEquals(event(dest, 1).id(), again.event().id());
      assertTrue(again.deliveryCount() >= 2, "delivery count " + again.deliveryCount());
      r.ack(List.of(again));
    }
  }

  @Test
  void eachConsumerGroupOfADestinationGetsItsOwnCopy() throws Exception {
    String dest = unique("dest");
    transport().declare(dest, "a");
    transport().declare(dest, "b");
    assertConfirmed(transport().publish(List.of(event(dest, 1)), CONFIRM), 1);
    for (String group : List.of("a", "b")) {
      try (Receiver r = transport().receiver(dest, group)) {
        List<Delivery> got = receive(r, 1, redeliveryWait());
        assertEquals(event(dest, 1).id(), got.get(0).event().id(), group);
        r.ack(got);
      }
    }
  }

  /**
   * Acknowledges each poll's deliveries before the next poll: a broker may hold a key's later
   * events back while earlier ones are unacknowledged (an SQS FIFO queue's message group does).
   */
  @Test
  void eventsWithOneKeyArriveInPublishOrder() throws Exception {
    String dest = unique("dest");
    transport().declare(dest, "g");
    List<Event> batch = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      batch.add(event(dest, i));
    }
    assertConfirmed(transport().publish(batch, CONFIRM), 20);
    try (Receiver r = transport().receiver(dest, "g")) {
      List<Delivery> got = new ArrayList<>();
      long deadline = System.nanoTime() + redeliveryWait().toNanos();
      while (got.size() < 20 && System.nanoTime() < deadline) {
        List<Delivery> polled = r.poll(20 - got.size(), Duration.ofMillis(200));
        if (!polled.isEmpty()) {
          r.ack(polled);
        }
        got.addAll(polled);
      }
      List<EventId> ids = got.stream().map(d -> d.event().id()).toList();
      List<EventId> sent = batch.stream().map(Event::id).toList();
      if (keepsKeyOrder()) {
        assertEquals(sent, ids);
      } else {
        assertEquals(Set.copyOf(sent), Set.copyOf(ids), "every event once");
        assertEquals(20, ids.size(), "every event once: " + ids);
      }
    }
  }

  /**
   * Whether the transport hands one key's events out in publish order; true but for a transport
   * that promises no order at all (an SQS standard queue), which must still deliver each event.
   */
  protected boolean keepsKeyOrder() {
    return true;
  }

  @Test
  void anUnroutableEventIsAFailureOfItsIndexWhileTheOthersAreConfirmed() {
    String routable = unique("dest");
    String nowhere = unique("nowhere");
    transport().declare(routable, "g");
    PublishResult result =
        transport()
            .publish(List.of(event(routable, 1), event(nowhere, 2), event(routable, 3)), CONFIRM);
    assertTrue(result.isConfirmed(0), "index 0 confirmed: " + result);
    assertFalse(result.isConfirmed(1), "unroutable index 1 must not be confirmed: " + result);
    assertTrue(result.failures().containsKey(1), "a reason for index 1: " + result);
    assertTrue(result.isConfirmed(2), "index 2 confirmed: " + result);
  }

  /**
   * Each decorator of the testkit, and a bare {@link ForwardingTransport}, answers for every
   * capability of this transport: wrapping it switches none of them off.
   */
  @Test
  void aDecoratorKeepsEveryCapabilityOfTheTransportItWraps() {
    Transport t = transport();
    TransportCapabilities.assertKept(t, new ForwardingTransport(t) {});
    TransportCapabilities.assertKept(t, new DuplicatingTransport(t, 0.5, 1));
    TransportCapabilities.assertKept(t, new EarlyAckingTransport(t));
    TransportCapabilities.assertKept(
        t, new DuplicatingTransport(new EarlyAckingTransport(t), 0.5, 1));
  }

  /** A test event {@code n} on {@code destination}, all with one key. */
  protected static Event event(String destination, int n) {
    return Event.of(
        EventId.of("contract", destination, n), destination, "key-1", "ContractEvent", "{}");
  }

  private static void assertConfirmed(PublishResult result, int size) {
    assertEquals(size, result.confirmed().cardinality(), "confirmed of " + size + ": " + result);
  }

  /**
   * Polls until {@code n} deliveries came or {@code within} ran out; asserts that {@code n} came.
   */
  protected static List<Delivery> receive(Receiver r, int n, Duration within)
      throws InterruptedException {
    List<Delivery> got = new ArrayList<>();
    long deadline = System.nanoTime() + within.toNanos();
    while (got.size() < n && System.nanoTime() < deadline) {
      got.addAll(r.poll(n - got.size(), Duration.ofMillis(200)));
    }
    assertEquals(n, got.size(), "deliveries received within " + within);
    return got;
  }
}
