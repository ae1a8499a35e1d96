package dev.once.jdbc;

import java.time.Instant;

/**
 * The failures recorded for one event of one consumer.
 *
 * @param attempts failed attempts so far
 * @param firstFailedAt when the first one failed
 * @param errorClass the last failure's class
 * @param fingerprint the last failure's fingerprint
 * @param message the last failure's message
 */
public record AttemptCount(
    int attempts, Instant firstFailedAt, String errorClass, String fingerprint, String message) {}
