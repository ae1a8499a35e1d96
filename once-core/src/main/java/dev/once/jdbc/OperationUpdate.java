package dev.once.jdbc;

import dev.once.OperationState;
import java.time.Instant;

/**
 * The change an attempt at an operation makes to its stored state (not an "outcome": that word is
 * what handling a delivery came to).
 *
 * @param operationId the operation
 * @param owner the caller that made the attempt
 * @param state the new state
 * @param result the provider's result, or null
 * @param error the error, or null to keep the last one
 * @param nextAttemptAt when a retry is due, or null
 * @param definitive a definitive answer (from the provider) is stored over any open state, even if
 *     {@code owner} lost the lease; anything else only by the owner still holding it
 * @param now the time of the change
 */
public record OperationUpdate(
    String operationId,
    String owner,
    OperationState state,
    String result,
    String error,
    Instant nextAttemptAt,
    boolean definitive,
    Instant now) {}
