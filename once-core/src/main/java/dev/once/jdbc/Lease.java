package dev.once.jdbc;

import java.time.Instant;

/**
 * Who holds an operation IN_FLIGHT and until when.
 *
 * @param owner the holder (one reconciler or caller)
 * @param until the lease ends then; another caller may take the operation after it
 * @param now the time of the change, for {@code updated_at} (and {@code first_attempt_at})
 */
public record Lease(String owner, Instant until, Instant now) {}
