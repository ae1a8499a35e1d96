package dev.once;

import dev.once.spi.Validate;
import java.time.Duration;

/**
 * The validated settings of one consumer.
 *
 * @param consumerId first half of the inbox key, and the transport's consumer group
 * @param destination the destination it subscribes to
 * @param handler the business logic
 * @param workers worker threads started by {@link Consumer#start()}, 1 to 256
 * @param batchSize deliveries taken into one transaction, 1 to 64 (a handler that fails makes the
 *     batch run again with a savepoint per delivery, and PostgreSQL slows down past 64
 *     subtransactions in one transaction)
 * @param idleWait how long an idle worker's poll waits for the first delivery before it polls again
 * @param retry attempts, backoff and the exceptions that are not retried
 * @param batchLinger how long a poll that had to wait for its first delivery waits for more before
 *     the batch starts, 0 to 1 s ({@link Duration#ZERO}: none); see {@link
 *     ConsumerBuilder#batchLinger}
 * @param ordered whether a key's events take effect in the order they were published, one at a
 *     time, a failing one holding back only its key (see {@link ConsumerBuilder#ordered})
 */
public record ConsumerConfig(
    String consumerId,
    String destination,
    Handler handler,
    int workers,
    int batchSize,
    Duration idleWait,
    RetryPolicy retry,
    Duration batchLinger,
    boolean ordered) {

  /** The settings of an unordered consumer. */
  public ConsumerConfig(
      String consumerId,
      String destination,
      Handler handler,
      int workers,
      int batchSize,
      Duration idleWait,
      RetryPolicy retry,
      Duration batchLinger) {
    this(consumerId, destination, handler, workers, batchSize, idleWait, retry, batchLinger, false);
  }

  /**
   * The settings of an unordered consumer with the default {@link
   * ConsumerBuilder#DEFAULT_BATCH_LINGER}.
   */
  public ConsumerConfig(
      String consumerId,
      String destination,
      Handler handler,
      int workers,
      int batchSize,
      Duration idleWait,
      RetryPolicy retry) {
    this(
        consumerId,
        destination,
        handler,
        workers,
        batchSize,
        idleWait,
        retry,
        ConsumerBuilder.DEFAULT_BATCH_LINGER);
  }

  public ConsumerConfig {
    Validate.name("consumer.id", consumerId);
    Validate.name("consumer.destination", destination);
    Validate.notNull("consumer.handler", handler);
    Validate.range("consumer.workers", workers, 1, 256);
    Validate.range("consumer.batchSize", batchSize, 1, 64);
    Validate.positive("consumer.idleWait", idleWait);
    Validate.notNull("consumer.retry", retry);
    Validate.notNull("consumer.batchLinger", batchLinger);
    if (batchLinger.isNegative() || batchLinger.compareTo(Duration.ofSeconds(1)) > 0) {
      throw new ConfigurationException(
          "consumer.batchLinger", "must be between 0 and 1 s, was " + batchLinger);
    }
  }
}
