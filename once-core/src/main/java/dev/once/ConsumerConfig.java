package dev.once;

import java.time.Duration;

/**
 * The validated settings of one consumer.
 *
 * @param consumerId first half of the inbox key, and the transport's consumer group
 * @param destination the destination it subscribes to
 * @param handler the business logic
 * @param workers worker threads started by {@link Consumer#start()}
 * @param batchSize deliveries taken into one transaction (a savepoint each)
 * @param pollTimeout how long a poll waits for the first delivery
 * @param retry attempts, backoff and the exceptions that are not retried
 */
public record ConsumerConfig(
    String consumerId,
    String destination,
    Handler handler,
    int workers,
    int batchSize,
    Duration pollTimeout,
    RetryPolicy retry) {}
