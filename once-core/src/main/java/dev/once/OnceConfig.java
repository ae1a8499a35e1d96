package dev.once;

import java.time.Clock;
import java.time.Duration;
import java.util.Set;

/**
 * The validated settings of a {@link Once} instance. Built by {@link OnceBuilder}.
 *
 * @param destinations where events may be published; anything else is refused at publish
 * @param partitions how many key partitions the outbox is split into; relays share them out.
 *     Changing it reorders keys in flight, so keep it fixed for a database.
 * @param relayBatchSize outbox rows a relay claims and publishes at a time
 * @param relayIdleWait how long an idle relay waits for a wake-up before looking again
 * @param confirmTimeout how long a relay waits for the broker's confirms of one batch
 * @param publishRetryDelay how long a row the broker refused first waits before the next attempt;
 *     doubles per attempt, with jitter
 * @param maxPublishRetryDelay cap of that delay
 * @param relayMaxAttempts publish attempts of a row before the relay parks it as a dead letter
 * @param retention what is deleted when (see {@link Once#retention()})
 * @param clock the time source
 */
public record OnceConfig(
    Set<String> destinations,
    int partitions,
    int relayBatchSize,
    Duration relayIdleWait,
    Duration confirmTimeout,
    Duration publishRetryDelay,
    Duration maxPublishRetryDelay,
    int relayMaxAttempts,
    RetentionPolicy retention,
    Clock clock) {}
