package dev.once;

import dev.once.spi.Validate;
import java.time.Duration;

/** Describes a consumer; {@link #build()} validates it. Obtain one from {@link Once#consumer}. */
public final class ConsumerBuilder {
  private final String consumerId;
  private final Once once;
  private String destination;
  private Handler handler;
  private Typed<?> typed;
  private int workers = DEFAULT_WORKERS;
  private int batchSize = DEFAULT_BATCH_SIZE;
  private Duration idleWait = DEFAULT_IDLE_WAIT;
  private RetryPolicy retry = RetryPolicy.DEFAULT;
  private Duration batchLinger = DEFAULT_BATCH_LINGER;
  private boolean ordered;

  /** The default of {@link #workers}: 2. */
  public static final int DEFAULT_WORKERS = 2;

  /** The default of {@link #batchSize}: 32. */
  public static final int DEFAULT_BATCH_SIZE = 32;

  /** The default of {@link #idleWait}: 1 s. */
  public static final Duration DEFAULT_IDLE_WAIT = Duration.ofSeconds(1);

  /**
   * The default of {@link #batchLinger}: 5 ms, a small part of a commit→effect latency budget (the
   * round-3 target is 50 ms at the 99th percentile) that lets a trickle of one-event producer
   * transactions share consumer commits.
   */
  public static final Duration DEFAULT_BATCH_LINGER = Duration.ofMillis(5);

  ConsumerBuilder(String consumerId, Once once) {
    this.consumerId = consumerId;
    this.once = once;
  }

  /** Handle every event published to {@code destination} with {@code handler}. */
  public ConsumerBuilder subscribe(String destination, Handler handler) {
    this.destination = destination;
    this.handler = handler;
    this.typed = null;
    return this;
  }

  /**
   * Handle every event published to {@code destination} with {@code handler}, its payload decoded
   * as a {@code type} by the instance's {@link PayloadCodec}. A payload that cannot be decoded is a
   * dead letter at its first delivery.
   */
  public <T> ConsumerBuilder subscribe(
      String destination, Class<T> type, TypedHandler<? super T> handler) {
    this.destination = destination;
    this.handler = null;
    this.typed = new Typed<>(type, handler);
    return this;
  }

  /**
   * Worker threads, each running one batch transaction at a time. Default {@value
   * #DEFAULT_WORKERS}.
   */
  public ConsumerBuilder workers(int workers) {
    this.workers = workers;
    return this;
  }

  /** Deliveries taken into one transaction. Default {@value #DEFAULT_BATCH_SIZE}. */
  public ConsumerBuilder batchSize(int batchSize) {
    this.batchSize = batchSize;
    return this;
  }

  /**
   * How long an idle worker's poll waits for the first delivery before it polls again (a wake-up or
   * an arriving delivery ends the wait sooner). Default {@link #DEFAULT_IDLE_WAIT}.
   */
  public ConsumerBuilder idleWait(Duration idleWait) {
    this.idleWait = idleWait;
    return this;
  }

  /**
   * How long a worker that had to wait for its first delivery waits for more before its batch
   * starts. Under a trickle (producers committing one event at a time) each delivery would
   * otherwise be a batch of its own, and each batch costs a synchronous commit; with a linger the
   * deliveries that arrive meanwhile share it. It lingers only under a trickle: on RabbitMQ while
   * the worker is busy ({@link dev.once.spi.Linger}: the delivery it waited for came less than a
   * linger and less than twice its last batch after the one before), on the table queue while rows
   * come at least one per linger. After a quiet spell (and on RabbitMQ at a light load) a delivery
   * starts its batch at once, as waiting would only add latency. A worker that finds deliveries
   * waiting never lingers, so a backlog is not slowed down. Default {@link #DEFAULT_BATCH_LINGER};
   * {@link Duration#ZERO} for none.
   */
  public ConsumerBuilder batchLinger(Duration batchLinger) {
    this.batchLinger = batchLinger;
    return this;
  }

  /** Retries, backoff and dead-lettering of this consumer. Default {@link RetryPolicy#DEFAULT}. */
  public ConsumerBuilder retry(RetryPolicy retry) {
    this.retry = retry;
    return this;
  }

  /**
   * Makes this consumer ordered: for events of one key on its destination, the handler's effects
   * commit in the order of the events in the transport, which for one producer database is the
   * order the producers' transactions committed them (docs/ORDERING.md). One event of a key runs at
   * a time; other keys run in parallel across workers and processes. A failing event holds back
   * only its key: while it waits for its retry the key's later events wait; when it is
   * dead-lettered its key is <b>parked</b> — the later events are kept, in order — until its dead
   * letter is replayed (it runs first, then the rest) or discarded (the rest run). Events without a
   * key are not ordered. Every process consuming as this consumer must set it alike.
   *
   * <p>Needs a transport with the {@link dev.once.spi.KeyOrder} capability (the table queue; Kafka,
   * where parked keys wait in a lane in Once's database) or the {@link dev.once.spi.QueueOrder} one
   * (RabbitMQ, SQS FIFO queues, whose messages all run from such a lane), with Once's database on
   * PostgreSQL or MariaDB/MySQL; {@link #build()} refuses it on others. Default: unordered.
   */
  public ConsumerBuilder ordered() {
    this.ordered = true;
    return this;
  }

  /**
   * Validates, declares the subscription at the transport, and returns the consumer (stopped).
   *
   * @throws ConfigurationException naming the first bad setting
   */
  public Consumer build() {
    Handler h = typed != null ? typed.handler(once.config().codecOrDiscover()) : handler;
    return once.consumer(
        new ConsumerConfig(
            consumerId, destination, h, workers, batchSize, idleWait, retry, batchLinger, ordered));
  }

  private record Typed<T>(Class<T> type, TypedHandler<? super T> typedHandler) {
    Typed {
      Validate.notNull("consumer.payloadType", type);
      Validate.notNull("consumer.handler", typedHandler);
    }

    Handler handler(PayloadCodec codec) {
      return (tx, event) -> {
        T payload;
        try {
          payload = codec.decode(event.event().payload(), type);
        } catch (Exception e) {
          throw new PayloadDecodingException(event.event(), type, e);
        }
        typedHandler.handle(tx, payload, event);
      };
    }
  }
}
