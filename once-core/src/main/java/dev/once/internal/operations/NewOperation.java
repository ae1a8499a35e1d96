package dev.once.internal.operations;

import dev.once.InvalidOperationException;
import dev.once.jdbc.OperationInsert;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.UUID;

/** An operation about to be stored: validated id, request, its fingerprint and a fresh key. */
record NewOperation(
    String operationId, String provider, String key, String fingerprint, String request) {

  static final int MAX_ID_LENGTH = 200;
  static final int MAX_REQUEST_BYTES = 64 * 1024;

  static NewOperation of(String provider, String operationId, String request) {
    validateId(operationId);
    if (request == null) {
      throw new InvalidOperationException("operation.request", "must not be null");
    }
    byte[] bytes = request.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > MAX_REQUEST_BYTES) {
      throw new InvalidOperationException(
          "operation.request",
          "of '"
              + operationId
              + "' is "
              + bytes.length
              + " bytes, the limit is "
              + MAX_REQUEST_BYTES);
    }
    return new NewOperation(
        operationId, provider, UUID.randomUUID().toString(), sha256(bytes), request);
  }

  /** The row to insert, created at {@code now}. */
  OperationInsert row(Instant now) {
    return new OperationInsert(operationId, provider, key, fingerprint, request, now);
  }

  static void validateId(String id) {
    if (id == null || id.isBlank()) {
      throw new InvalidOperationException(
          "operation.id", "must not be " + (id == null ? "null" : "empty") + "");
    }
    if (id.length() > MAX_ID_LENGTH) {
      throw new InvalidOperationException(
          "operation.id",
          "is "
              + id.length()
              + " characters, the limit is "
              + MAX_ID_LENGTH
              + ": '"
              + id.substring(0, 40)
              + "…'");
    }
    if (!id.strip().equals(id) || id.chars().anyMatch(Character::isISOControl)) {
      throw new InvalidOperationException(
          "operation.id",
          "must have no control characters and no white space at its ends: '" + id + "'");
    }
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }
}
