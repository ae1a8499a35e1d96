package dev.once.sqs.internal;

import dev.once.spi.Delivery;
import dev.once.spi.Linger;
import dev.once.spi.Outage;
import dev.once.spi.Receiver;
import dev.once.sqs.SqsSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageRequest;
import software.amazon.awssdk.services.sqs.model.ReceiveMessageResponse;

/**
 * One worker's receiver of a group queue. Keeps up to {@code receivesInFlight} long polls ({@code
 * ReceiveMessage}, up to 10 messages each) going; what they bring waits in a buffer for the next
 * {@link #poll}, invisible to other receivers and kept so by the {@link Settlement}. While a poll
 * waits for its first delivery, a long poll that ends empty is followed by another, so that the
 * poll listens for the whole of its wait and not only for the first {@code receiveWait}. After a
 * failed receive it waits a second before the next one (no hot loop while SQS is away). Closing it
 * returns every message it holds, at once.
 */
public final class SqsReceiver implements Receiver {
  private static final Logger log = LoggerFactory.getLogger(SqsReceiver.class);
  private static final long BACKOFF_NANOS = 1_000_000_000L;

  private final SqsAsyncClient client;
  private final SqsSettings settings;
  private final String destination;
  private final String url;
  private final Settlement settlement;
  private final Consumer<SqsReceiver> onClose;
  private final Outage outage;
  private final LinkedBlockingQueue<Delivery> buffer = new LinkedBlockingQueue<>();
  private final AtomicInteger receiving = new AtomicInteger();
  private volatile int wanted = 10;
  private volatile long failedAt;
  private volatile boolean failing;
  private volatile boolean closed;
  private final Linger lingering = new Linger();
  private volatile long lastArrival = System.nanoTime();
  private volatile long lastGap = Long.MAX_VALUE;
  private volatile boolean afresh = true;
  private volatile boolean waiting;

  public SqsReceiver(
      SqsAsyncClient client,
      SqsSettings settings,
      String destination,
      String url,
      Consumer<SqsReceiver> onClose) {
    this.client = client;
    this.settings = settings;
    this.destination = destination;
    this.url = url;
    this.onClose = onClose;
    this.settlement = new Settlement(client, settings, url);
    this.outage = new Outage(log, "SQS receiver of " + url);
  }

  @Override
  public List<Delivery> poll(int max, Duration wait) throws InterruptedException {
    return poll(max, wait, Duration.ZERO);
  }

  /**
   * After a first delivery that had to be waited for, collects more for up to {@code linger} when
   * the worker is busy ({@link Linger}), as the RabbitMQ receiver does. SQS hands out at most 10
   * messages a receive, so what a crash left behind comes back over several receives: the first
   * poll of a new receiver, and the first after an outage, always collect, so that those messages
   * run as one batch rather than as one batch per receive.
   */
  @Override
  public List<Delivery> poll(int max, Duration wait, Duration linger) throws InterruptedException {
    waiting = true;
    try {
      return receive(max, wait, linger);
    } finally {
      waiting = false;
    }
  }

  private List<Delivery> receive(int max, Duration wait, Duration linger)
      throws InterruptedException {
    lingering.pollStarts(System.nanoTime());
    wanted = Math.max(1, Math.min(10, max));
    receiveMore();
    List<Delivery> got = new ArrayList<>();
    Delivery first = buffer.poll();
    boolean waited = first == null;
    if (waited) {
      first = buffer.poll(wait.toNanos(), TimeUnit.NANOSECONDS);
    }
    if (first == null) {
      return got;
    }
    boolean fresh = afresh;
    afresh = false;
    got.add(first);
    buffer.drainTo(got, max - 1);
    if (!linger.isZero() && (fresh || waited && lingering.lingers(linger, lastGap))) {
      collect(got, max, System.nanoTime() + linger.toNanos());
    }
    receiveMore();
    lingering.returns(System.nanoTime());
    return got;
  }

  /** Adds what the receives bring to {@code got} until it holds {@code max} or {@code until}. */
  private void collect(List<Delivery> got, int max, long until) throws InterruptedException {
    long left;
    while (got.size() < max && (left = until - System.nanoTime()) > 0) {
      receiveMore();
      Delivery next = buffer.poll(left, TimeUnit.NANOSECONDS);
      if (next == null) {
        return;
      }
      got.add(next);
      buffer.drainTo(got, max - got.size());
    }
  }

  /** Starts receives until {@code receivesInFlight} are going, unless SQS just failed one. */
  private void receiveMore() {
    if (failing && System.nanoTime() - failedAt < BACKOFF_NANOS) {
      return;
    }
    while (!closed && buffer.size() < 10 * settings.receivesInFlight()) {
      int n = receiving.get();
      if (n >= settings.receivesInFlight() || !receiving.compareAndSet(n, n + 1)) {
        if (receiving.get() >= settings.receivesInFlight()) {
          return;
        }
        continue;
      }
      receiveOne();
    }
  }

  private void receiveOne() {
    ReceiveMessageRequest request =
        ReceiveMessageRequest.builder()
            .queueUrl(url)
            .maxNumberOfMessages(wanted)
            .waitTimeSeconds((int) settings.receiveWait().toSeconds())
            .visibilityTimeout((int) settings.visibilityTimeout().toSeconds())
            .messageAttributeNames("All")
            .messageSystemAttributeNames(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT)
            .build();
    long started = System.nanoTime();
    try {
      client.receiveMessage(request).whenComplete((r, e) -> received(r, e, started));
    } catch (RuntimeException e) {
      received(null, e, started);
    }
  }

  private void received(ReceiveMessageResponse r, Throwable error, long started) {
    receiving.decrementAndGet();
    if (error != null) {
      if (!closed) {
        failedAt = System.nanoTime();
        failing = true;
        outage.failed("receive failed, trying again in a second: {}", error.toString());
      }
      return;
    }
    if (failing) {
      afresh = true; // what piled up during the outage comes in a rush
    }
    failing = false;
    outage.ended();
    List<Delivery> got = new ArrayList<>();
    for (Message m : r.messages()) {
      int count = receiveCount(m);
      SqsHandle h = new SqsHandle(m.receiptHandle(), m.messageId(), started, count);
      if (!settlement.received(h)) {
        log.debug(
            "message {} received again while held: settled once, with the later receipt",
            m.messageId());
        continue;
      }
      got.add(MessageCodec.decode(destination, m, count, h));
    }
    if (closed) {
      // gives them back without waiting: this runs on one of the SDK's few response threads,
      // and a wait here for a call whose answer needs such a thread stalled every call of the
      // client for the request timeout (all 8 blocked under crashes in 'once bench faults')
      settlement.returnAfter(handles(got), Duration.ZERO);
      return;
    }
    buffer.addAll(got);
    if (closed) { // closed while they were added: close() may have cleared the buffer before
      buffer.clear();
      settlement.returnAfter(handles(got), Duration.ZERO);
      return;
    }
    if (!got.isEmpty()) {
      long now = System.nanoTime();
      lastGap = now - lastArrival;
      lastArrival = now;
      receiveMore();
    } else if (waiting && settings.receiveWait().toSeconds() > 0) {
      receiveMore(); // a poll still waits: listen for the rest of its wait (a long poll, no loop)
    }
  }

  private static int receiveCount(Message m) {
    String c = m.attributes().get(MessageSystemAttributeName.APPROXIMATE_RECEIVE_COUNT);
    try {
      return c == null ? 1 : Math.max(1, Integer.parseInt(c));
    } catch (NumberFormatException e) {
      return 1;
    }
  }

  @Override
  public void ack(List<Delivery> deliveries) {
    settlement.delete(handles(deliveries));
  }

  @Override
  public void nack(List<Delivery> deliveries, Duration delay) {
    settlement.returnAfter(handles(deliveries), delay);
  }

  /** For the transport's timer: keeps held messages invisible while their batch runs. */
  public void extend(long now) {
    settlement.extend(now);
  }

  private static List<SqsHandle> handles(List<Delivery> deliveries) {
    return deliveries.stream().map(d -> (SqsHandle) d.handle()).toList();
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    buffer.clear();
    settlement.returnAll();
    onClose.accept(this);
  }
}
