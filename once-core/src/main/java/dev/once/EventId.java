package dev.once;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The stable identity of an event: fixed before its first publication, carried by every delivery of
 * it, and the consumer's inbox key. The same work keeps the same id on every attempt; work that is
 * legitimately done again gets a new one ({@code export-completed:814:v1}, then {@code :v2}).
 * Content equality is never identity.
 *
 * <p>An id is 1 to {@value #MAX_LENGTH} characters, with no control characters and no leading or
 * trailing white space.
 */
public record EventId(String value) implements Comparable<EventId> {

  public static final int MAX_LENGTH = 200;

  public EventId {
    validate("event.id", value);
  }

  /** An id from its parts joined by ':', e.g. {@code EventId.of("order-paid", 814)}. */
  public static EventId of(String type, Object... parts) {
    if (parts.length == 1) { // the common case: one string of its exact length, no builder
      return new EventId(Objects.requireNonNull(type, "type") + ":" + parts[0]);
    }
    StringBuilder id = new StringBuilder(Objects.requireNonNull(type, "type"));
    for (Object part : parts) {
      id.append(':').append(part);
    }
    return new EventId(id.toString());
  }

  /**
   * The id of an event that {@code consumerId}'s handler emits while handling {@code incoming},
   * under {@code name}. Deterministic: a handler that runs again for the same incoming event
   * derives the same id, so a replayed handler cannot mint new work.
   */
  public static EventId derive(String consumerId, EventId incoming, String name) {
    validate("name", name);
    String full = name + ":" + consumerId + "/" + incoming.value();
    if (full.length() <= MAX_LENGTH) {
      return new EventId(full);
    }
    return new EventId(name + ":" + sha256(consumerId + "/" + incoming.value()));
  }

  static void validate(String field, String value) {
    if (value == null) {
      throw new InvalidEventException(field, "must not be null");
    }
    if (value.isEmpty()) {
      throw new InvalidEventException(field, "must not be empty");
    }
    if (value.length() > MAX_LENGTH) {
      throw new InvalidEventException(
          field,
          "is "
              + value.length()
              + " characters long, the limit is "
              + MAX_LENGTH
              + " (starts with '"
              + value.substring(0, 40)
              + "')");
    }
    if (!value.strip().equals(value)) {
      throw new InvalidEventException(
          field, "must not start or end with white space: '" + value + "'");
    }
    for (int i = 0; i < value.length(); i++) {
      if (Character.isISOControl(value.charAt(i))) {
        throw new InvalidEventException(
            field, "has a control character at index " + i + " (only printable characters)");
      }
    }
  }

  private static String sha256(String text) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JDK", e);
    }
  }

  @Override
  public int compareTo(EventId other) {
    return value.compareTo(other.value);
  }

  @Override
  public String toString() {
    return value;
  }
}
