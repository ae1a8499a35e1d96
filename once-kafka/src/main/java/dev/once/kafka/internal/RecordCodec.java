package dev.once.kafka.internal;

import dev.once.Event;
import dev.once.spi.MessageDecoder;
import dev.once.spi.RawMessage;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * An event as a Kafka record: key = event key, value = payload, header {@code once-event-id} = the
 * event id (its only identity: never topic, partition or offset), {@code once-type} = type, and
 * every event header as a header of its own name.
 */
public final class RecordCodec {
  public static final String ID = "once-event-id";
  public static final String TYPE = "once-type";

  private RecordCodec() {}

  public static ProducerRecord<byte[], byte[]> encode(String topic, Event e) {
    RecordHeaders headers = new RecordHeaders();
    headers.add(ID, utf8(e.id().value()));
    headers.add(TYPE, utf8(e.type()));
    for (Map.Entry<String, String> h : e.headers().entrySet()) {
      if (!h.getKey().equals(ID)
          && !h.getKey().equals(TYPE)
          && !h.getKey().equals(RawMessage.KEY)) {
        headers.add(h.getKey(), utf8(h.getValue()));
      }
    }
    byte[] key = e.key() == null ? null : utf8(e.key());
    return new ProducerRecord<>(topic, null, key, e.payload(), headers);
  }

  /**
   * The record as the shared {@link MessageDecoder} reads it: the record key as {@code once-key},
   * every header as bytes. The decoder never throws; a record it cannot read (no id header, bytes
   * that are not UTF-8, a null header) becomes a malformed delivery, dead-lettered at once.
   */
  public static RawMessage raw(String destination, ConsumerRecord<byte[], byte[]> r) {
    Map<String, Object> headers = new LinkedHashMap<>();
    for (Header h : r.headers()) {
      headers.put(h.key(), h.value());
    }
    if (r.key() != null) {
      headers.put(RawMessage.KEY, r.key());
    } else {
      headers.remove(RawMessage.KEY);
    }
    return new RawMessage(destination, null, null, headers, r.value());
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
