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
 * @param retryDelay delay before a failed delivery comes back; doubles per delivery, with jitter
 * @param maxRetryDelay cap of that delay
 */
public record ConsumerConfig(
    String consumerId,
    String destination,
    Handler handler,
    int workers,
    int batchSize,
    Duration pollTimeout,
    Duration retryDelay,
    Duration maxRetryDelay) {}
