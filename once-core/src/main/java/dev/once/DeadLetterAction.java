package dev.once;

import java.time.Instant;

/**
 * A replay or discard recorded in {@code once_dead_letter_action}.
 *
 * @param action {@code replay} or {@code discard}
 */
public record DeadLetterAction(String action, String actor, String reason, Instant actedAt) {}
