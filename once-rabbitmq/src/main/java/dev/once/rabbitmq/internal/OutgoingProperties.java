package dev.once.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.impl.ContentHeaderPropertyWriter;
import java.io.IOException;
import java.util.Date;
import java.util.Map;

/**
 * The properties of a message the relay publishes, written to the wire exactly as the client's own
 * {@link AMQP.BasicProperties} writes the same fields (content type, headers, delivery mode,
 * message id, timestamp, type, app id), but holding the header map it is given: the client's
 * constructor copies the map into a new {@code HashMap} behind an unmodifiable view, whose table
 * the client then walks twice to write it (once to size the table, once to write it), for every
 * message. The map given here is immutable ({@link MessageCodec} builds it for this message), so
 * nothing can change it between the two walks. {@code MessageCodecTest} holds the bytes.
 */
final class OutgoingProperties extends AMQP.BasicProperties {
  private static final Integer PERSISTENT = 2;

  private final Map<String, Object> headers;

  OutgoingProperties(
      String contentType,
      Map<String, Object> headers,
      String messageId,
      Date timestamp,
      String type,
      String appId) {
    super(
        contentType,
        null,
        null,
        PERSISTENT,
        null,
        null,
        null,
        null,
        messageId,
        timestamp,
        type,
        null,
        appId,
        null);
    this.headers = headers;
  }

  @Override
  public Map<String, Object> getHeaders() {
    return headers;
  }

  /** The fields in the order and with the presence flags of {@link AMQP.BasicProperties}. */
  @Override
  public void writePropertiesTo(ContentHeaderPropertyWriter writer) throws IOException {
    writer.writePresence(getContentType() != null);
    writer.writePresence(false); // content encoding
    writer.writePresence(headers != null);
    writer.writePresence(true); // delivery mode
    writer.writePresence(false); // priority
    writer.writePresence(false); // correlation id
    writer.writePresence(false); // reply to
    writer.writePresence(false); // expiration
    writer.writePresence(getMessageId() != null);
    writer.writePresence(getTimestamp() != null);
    writer.writePresence(getType() != null);
    writer.writePresence(false); // user id
    writer.writePresence(getAppId() != null);
    writer.writePresence(false); // cluster id
    writer.finishPresence();
    if (getContentType() != null) {
      writer.writeShortstr(getContentType());
    }
    if (headers != null) {
      writer.writeTable(headers);
    }
    writer.writeOctet(PERSISTENT);
    if (getMessageId() != null) {
      writer.writeShortstr(getMessageId());
    }
    if (getTimestamp() != null) {
      writer.writeTimestamp(getTimestamp());
    }
    if (getType() != null) {
      writer.writeShortstr(getType());
    }
    if (getAppId() != null) {
      writer.writeShortstr(getAppId());
    }
  }

  @Override
  public AMQP.BasicProperties.Builder builder() {
    return super.builder().headers(headers);
  }

  @Override
  public void appendPropertyDebugStringTo(StringBuilder acc) {
    super.appendPropertyDebugStringTo(acc);
    acc.append(", headers=").append(headers);
  }
}
