package dev.once.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.RecoveryListener;
import com.rabbitmq.client.ShutdownSignalException;
import dev.once.BrokerUnavailableException;
import dev.once.spi.Delivery;
import dev.once.spi.Linger;
import dev.once.spi.MessageDecoder;
import dev.once.spi.Receiver;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One channel, one push consumer with manual acknowledgements and basic.qos(prefetch). The broker
 * pushes at most {@code prefetch} unacknowledged deliveries into a local buffer that {@link #poll}
 * drains. Closing the receiver closes the channel: its unacknowledged deliveries go back to the
 * queue, exactly as if the process had died. When the broker connection is cut instead, the
 * unsettled deliveries are remembered ({@link LostDeliveries}): their next delivery in this process
 * {@linkplain #cameBackCleanly came back cleanly}.
 *
 * <p>A return without delay ({@link #release}, {@code nack} with zero delay) is sent at the next
 * call on this receiver, or after {@link #DEFER_MILLIS} without one; a close before that returns
 * those deliveries with the channel. After a crash the worker releases its batch and closes the
 * receiver at once: a requeue sent first would put each delivery back in the queue, the broker
 * would push it straight back to this still open channel, and the close would return it a second
 * time — two returns per crash against the quorum queue's delivery limit instead of one.
 */
public final class RabbitReceiver implements Receiver {
  private static final Logger log = LoggerFactory.getLogger(RabbitReceiver.class);

  /** The longest a return without delay waits for the next call on the receiver, or its close. */
  static final long DEFER_MILLIS = 200;

  private final Channel channel;
  private final String destination;
  private final String queue;
  private final ScheduledExecutorService scheduler;
  private final Duration maxNackDelay;
  private final LinkedBlockingQueue<Delivery> buffer = new LinkedBlockingQueue<>();
  private final AtomicLong generation = new AtomicLong();
  private final Settlement settlement;
  private final String safeUri;
  private final LostDeliveries lostDeliveries;

  /** Event ids of the deliveries handed in on this channel and not settled yet, by tag. */
  private final Map<Long, String> unsettled = new ConcurrentHashMap<>();

  /** Tags returned without delay, not sent yet; on channel generation {@link #deferredOn}. */
  private final List<Long> deferred = new ArrayList<>();

  private long deferredOn;

  private volatile String cancelled;

  /** No poll since the channel opened or recovered: the broker may still be pushing a burst. */
  private volatile boolean opened = true;

  /**
   * When the latest delivery arrived (nanoseconds on {@link #clock}), and how long after the one
   * before it.
   */
  private volatile long lastArrival = Long.MIN_VALUE / 2;

  private volatile long lastGap = Long.MAX_VALUE;

  private final Linger lingering = new Linger();

  /**
   * What delivery gaps and batch times are read on, for {@link Linger}; a linger waits in real
   * time.
   */
  private final Clock clock;

  public RabbitReceiver(
      Connections connections,
      String destination,
      String queue,
      int prefetch,
      Duration maxNackDelay,
      ScheduledExecutorService scheduler,
      LostDeliveries lostDeliveries,
      Clock clock) {
    this.lostDeliveries = lostDeliveries;
    this.clock = clock;
    this.channel = connections.consumeChannel();
    this.safeUri = connections.safeUri();
    this.destination = destination;
    this.queue = queue;
    this.maxNackDelay = maxNackDelay;
    this.scheduler = scheduler;
    this.settlement = new Settlement(channel);
    channel.addShutdownListener(this::lost);
    ((Recoverable) channel).addRecoveryListener(recovery());
    try {
      channel.basicQos(prefetch);
      channel.basicConsume(queue, false, new Push(channel));
    } catch (IOException | RuntimeException e) {
      close();
      throw new BrokerUnavailableException(
          "RabbitMQ at " + safeUri, "refused a consumer on queue '" + queue + "': " + e, e);
    }
  }

  private void lost(ShutdownSignalException cause) {
    generation.incrementAndGet();
    settlement.forgetAll();
    buffer.clear();
    if (!cause.isInitiatedByApplication()) {
      lostDeliveries.add(queue, unsettled.values()); // cut under us: they crashed nothing
      if (cause.isHardError()) { // the connection went: its outage is logged once (ClientOutages)
        log.debug("receiver on {} lost its channel with the connection", queue);
      } else {
        log.warn("receiver on {} lost its channel: {}", queue, cause.getMessage());
      }
    }
    unsettled.clear();
  }

  private RecoveryListener recovery() {
    return new RecoveryListener() {
      @Override
      public void handleRecovery(Recoverable recoverable) {
        opened = true;
        log.debug("receiver on {} recovered its channel", queue);
      }

      @Override
      public void handleRecoveryStarted(Recoverable recoverable) {
        generation.incrementAndGet();
      }
    };
  }

  /** Receives on the connection's consumer thread; only decodes and buffers. */
  private final class Push extends DefaultConsumer {
    Push(Channel channel) {
      super(channel);
    }

    @Override
    public void handleCancel(String consumerTag) {
      cancelled = "the broker cancelled its consumer (queue deleted?)";
    }

    @Override
    public void handleDelivery(
        String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
      long gen = generation.get();
      long deliveryTag = envelope.getDeliveryTag();
      settlement.delivered(deliveryTag);
      // Never throws: a message that does not decode comes out as a malformed delivery, which the
      // consumer dead-letters and then acknowledges like any other.
      Delivery d =
          MessageDecoder.decode(
              MessageCodec.raw(destination, props, body),
              MessageCodec.deliveryCount(props, envelope.isRedeliver()),
              envelope.isRedeliver(),
              new Handle(gen, deliveryTag));
      if (!d.isMalformed()) {
        unsettled.put(deliveryTag, d.event().id().value());
      }
      long now = now();
      lastGap = now - lastArrival;
      lastArrival = now;
      buffer.add(d);
    }
  }

  @Override
  public List<Delivery> poll(int max, Duration wait) throws InterruptedException {
    return poll(max, wait, Duration.ZERO);
  }

  /**
   * After a first delivery that had to be waited for, collects more for up to {@code linger} when
   * the worker is busy ({@link Linger}: the one waited for arrived less than a linger and less than
   * twice the worker's last batch after the one before it): deliveries then share a consumer
   * commit, while at a light load, or after a quiet spell, a delivery runs at once instead of
   * waiting for a second. The first poll on a channel just opened or recovered always collects, as
   * it may catch the broker in the middle of pushing what it had (the deliveries a crash or a cut
   * handed back): they then run as one batch rather than two.
   */
  @Override
  public List<Delivery> poll(int max, Duration wait, Duration linger) throws InterruptedException {
    lingering.pollStarts(now());
    requeueDeferred();
    checkAlive();
    List<Delivery> got = new ArrayList<>(max);
    Delivery first = buffer.poll();
    boolean waited = first == null;
    if (waited) {
      first = buffer.poll(wait.toNanos(), TimeUnit.NANOSECONDS);
    }
    if (first == null) {
      return got;
    }
    boolean justOpened = opened;
    opened = false;
    got.add(first);
    buffer.drainTo(got, max - 1);
    if (!linger.isZero() && (justOpened || waited && lingering.lingers(linger, lastGap))) {
      long until = System.nanoTime() + linger.toNanos();
      long left;
      while (got.size() < max && (left = until - System.nanoTime()) > 0) {
        Delivery next = buffer.poll(left, TimeUnit.NANOSECONDS);
        if (next == null) {
          break;
        }
        got.add(next);
        buffer.drainTo(got, max - got.size());
      }
    }
    dropStale(got);
    if (!got.isEmpty()) {
      lingering.returns(now());
    }
    return got;
  }

  /**
   * Drops the deliveries of a channel closed since they came (their acknowledgement could not reach
   * the broker); with none, as nearly always, it allocates nothing.
   */
  private void dropStale(List<Delivery> got) {
    long current = generation.get();
    for (Delivery d : got) {
      if (((Handle) d.handle()).generation() != current) {
        got.removeIf(stale -> ((Handle) stale.handle()).generation() != current);
        return;
      }
    }
  }

  private long now() {
    Instant now = clock.instant();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  /**
   * A channel the client will not bring back (closed by a channel error while the connection is up,
   * or the broker cancelled the consumer): the worker must replace this receiver. While the
   * connection itself is down the client is recovering it, and polls just come back empty.
   */
  private void checkAlive() {
    String problem = cancelled;
    if (problem == null && !channel.isOpen() && channel.getConnection().isOpen()) {
      problem = "its channel was closed: " + channel.getCloseReason();
    }
    if (problem != null) {
      throw new BrokerUnavailableException(
          "RabbitMQ at " + safeUri,
          "stopped delivering to the receiver on '" + queue + "', " + problem,
          null);
    }
  }

  @Override
  public void ack(List<Delivery> deliveries) {
    requeueDeferred();
    List<Long> tags = current(deliveries);
    settlement.ack(tags);
    tags.forEach(unsettled::remove);
  }

  /** True once for a redelivery of an event this transport lost with a cut connection. */
  @Override
  public boolean cameBackCleanly(Delivery d) {
    return d.redelivered()
        && !d.isMalformed()
        && lostDeliveries.take(queue, d.event().id().value());
  }

  @Override
  public void nack(List<Delivery> deliveries, Duration delay) {
    requeueDeferred();
    List<Long> tags = current(deliveries);
    if (tags.isEmpty()) {
      return;
    }
    long gen = generation.get();
    Duration hold = delay.compareTo(maxNackDelay) > 0 ? maxNackDelay : delay;
    if (hold.isZero() || hold.isNegative()) {
      defer(tags, gen);
      return;
    }
    // The broker has no delayed requeue: keep the deliveries unacknowledged (so nobody else gets
    // them) and return them when the delay is over — unless the channel was lost meanwhile.
    scheduler.schedule(
        () -> {
          if (generation.get() == gen) {
            settlement.requeue(tags);
            tags.forEach(unsettled::remove);
          }
        },
        hold.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /** Holds back the return of {@code tags} until the next call, a close, or DEFER_MILLIS. */
  private synchronized void defer(List<Long> tags, long gen) {
    if (deferred.isEmpty() || deferredOn != gen) {
      deferred.clear();
      deferredOn = gen;
      scheduler.schedule(this::requeueDeferred, DEFER_MILLIS, TimeUnit.MILLISECONDS);
    }
    deferred.addAll(tags);
  }

  /** Sends the returns held back, if their channel is still open (a close returned them). */
  private synchronized void requeueDeferred() {
    if (deferred.isEmpty()) {
      return;
    }
    if (deferredOn == generation.get()) {
      settlement.requeue(deferred);
      deferred.forEach(unsettled::remove);
    }
    deferred.clear();
  }

  /** The tags of the deliveries that came on the current channel; stale ones are dropped. */
  private List<Long> current(List<Delivery> deliveries) {
    long gen = generation.get();
    List<Long> tags = new ArrayList<>(deliveries.size());
    for (Delivery d : deliveries) {
      Handle h = (Handle) d.handle();
      if (h.generation() == gen) {
        tags.add(h.tag());
      } else {
        log.debug("queue {}: dropping the settlement of {} from a lost channel", queue, h);
      }
    }
    return tags;
  }

  @Override
  public void close() {
    synchronized (this) {
      generation.incrementAndGet(); // the returns held back go with the channel
      deferred.clear();
    }
    buffer.clear();
    unsettled.clear(); // closed by us, as a crash would: what comes back is suspect
    try {
      channel.abort();
    } catch (IOException | RuntimeException ignored) {
      // already gone: its deliveries are back in the queue either way
    }
  }
}
