package dev.once.spi;

import java.time.Instant;

/**
 * A replay or discard of a dead letter, for the audit table.
 *
 * @param consumerId the dead letter's consumer
 * @param eventId its event
 * @param action {@code replay} or {@code discard}
 * @param actor who
 * @param reason why
 * @param actedAt when
 */
public record DeadLetterAction(
    String consumerId,
    String eventId,
    String action,
    String actor,
    String reason,
    Instant actedAt) {}
