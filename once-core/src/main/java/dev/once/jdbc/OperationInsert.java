package dev.once.jdbc;

import java.time.Instant;

/**
 * A new operation, stored PENDING before any call.
 *
 * @param operationId the caller's id
 * @param provider the provider it is for
 * @param idempotencyKey the key sent to the provider on every call
 * @param fingerprint SHA-256 of the request
 * @param request the request
 * @param now its creation (and last update) time
 */
public record OperationInsert(
    String operationId,
    String provider,
    String idempotencyKey,
    String fingerprint,
    String request,
    Instant now) {}
