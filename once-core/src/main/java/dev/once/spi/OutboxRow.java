package dev.once.spi;

import dev.once.Event;
import java.time.Instant;

/**
 * An outbox row the relay claimed for publishing.
 *
 * @param id the row's id, for {@link StoreDialect#markSent} and friends
 * @param event the event as published
 * @param createdAt when the producing transaction wrote it
 * @param attempts publishes the broker refused so far
 */
public record OutboxRow(long id, Event event, Instant createdAt, int attempts) {}
