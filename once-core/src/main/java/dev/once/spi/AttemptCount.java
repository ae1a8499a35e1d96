package dev.once.spi;

import java.time.Instant;

/**
 * The failures recorded for one event of one consumer.
 *
 * @param attempts failed attempts so far
 * @param firstFailedAt when the first one failed
 */
public record AttemptCount(int attempts, Instant firstFailedAt) {}
