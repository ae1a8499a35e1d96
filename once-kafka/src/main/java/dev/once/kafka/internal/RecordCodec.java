package dev.once.kafka.internal;

import dev.once.Event;
import dev.once.spi.MessageDecoder;
import dev.once.spi.RawMessage;
import java.nio.charset.StandardCharsets;
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
   * every header as bytes, in the record's order. The decoder never throws; a record it cannot read
   * (no id header, bytes that are not UTF-8, a null header, a Once header twice — Kafka allows
   * repeated header keys, and a header {@code once-key} beside a record key is one) becomes a
   * malformed delivery, dead-lettered at once.
   */
  public static RawMessage raw(String destination, ConsumerRecord<byte[], byte[]> r) {
    RawMessage.Headers headers = new RawMessage.Headers();
    for (Header h : r.headers()) {
      headers.add(h.key(), h.value());
    }
    headers.field(RawMessage.KEY, r.key());
    return headers.message(destination, null, null, r.value());
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
