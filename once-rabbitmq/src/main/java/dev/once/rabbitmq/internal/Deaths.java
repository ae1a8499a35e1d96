package dev.once.rabbitmq.internal;

import com.rabbitmq.client.LongString;
import dev.once.spi.BrokerDeadLetter;
import dev.once.spi.Delivery;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;

/**
 * What RabbitMQ wrote on a message it dead-lettered: {@code x-first-death-queue}, {@code
 * x-first-death-reason} and the {@code x-death} list (queue, reason, time, count per entry). Any of
 * it may be missing or forged by a publisher: read leniently, shown only as short printable text.
 */
final class Deaths {
  private static final int MAX_TEXT = 255;

  private Deaths() {}

  static BrokerDeadLetter of(Delivery d, Map<String, Object> headers) {
    try {
      return read(d, headers == null ? Map.of() : headers);
    } catch (RuntimeException e) {
      return new BrokerDeadLetter(d, null, null, null, 1);
    }
  }

  private static BrokerDeadLetter read(Delivery d, Map<String, Object> headers) {
    List<?> deaths = headers.get("x-death") instanceof List<?> l ? l : List.of();
    String queue = text(headers.get("x-first-death-queue"));
    String reason = text(headers.get("x-first-death-reason"));
    Instant at = null;
    long count = 0;
    for (Object entry : deaths) {
      if (!(entry instanceof Map<?, ?> death)) {
        continue;
      }
      String q = text(death.get("queue"));
      String r = text(death.get("reason"));
      if (queue == null) {
        queue = q;
        reason = r;
      }
      if (at == null && death.get("time") instanceof Date time && same(q, queue, r, reason)) {
        at = time.toInstant();
      }
      count += death.get("count") instanceof Number n ? Math.max(0, n.longValue()) : 0;
    }
    return new BrokerDeadLetter(d, queue, reason, at, Math.max(1, count));
  }

  private static boolean same(String q, String queue, String r, String reason) {
    return q != null && q.equals(queue) && (reason == null || reason.equals(r));
  }

  /** A broker-written name: printable ASCII, cut to 255 characters; null when it is not text. */
  private static String text(Object value) {
    String s = value instanceof LongString l ? l.toString() : value instanceof String t ? t : null;
    if (s == null) {
      return null;
    }
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < s.length() && out.length() < MAX_TEXT; i++) {
      char c = s.charAt(i);
      out.append(c >= 0x20 && c < 0x7f ? c : '?');
    }
    return out.toString();
  }
}
