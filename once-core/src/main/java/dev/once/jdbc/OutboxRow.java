package dev.once.jdbc;

import dev.once.spi.RawMessage;
import java.time.Instant;

/**
 * An outbox row the relay claimed for publishing.
 *
 * @param id the row's id, for {@link StoreDialect#markSent} and friends
 * @param message the row as stored, undecoded (a row written by hand or by another service may hold
 *     anything; the relay parks what does not decode)
 * @param createdAt when the producing transaction wrote it
 * @param attempts publishes the broker refused so far
 */
public record OutboxRow(long id, RawMessage message, Instant createdAt, int attempts) {}
