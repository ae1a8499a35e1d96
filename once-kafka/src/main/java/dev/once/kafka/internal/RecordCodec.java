package dev.once.kafka.internal;

import dev.once.Event;
import dev.once.EventId;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
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
      if (!h.getKey().equals(ID) && !h.getKey().equals(TYPE)) {
        headers.add(h.getKey(), utf8(h.getValue()));
      }
    }
    byte[] key = e.key() == null ? null : utf8(e.key());
    return new ProducerRecord<>(topic, null, key, e.payload(), headers);
  }

  /** Why a record cannot be read as an event. */
  public static final class Undecodable extends Exception {
    private static final long serialVersionUID = 1L;

    Undecodable(String reason) {
      super(reason, null, false, false);
    }
  }

  public static Event decode(String destination, ConsumerRecord<byte[], byte[]> r)
      throws Undecodable {
    String id = header(r, ID);
    if (id == null) {
      throw new Undecodable("no " + ID + " header");
    }
    String type = header(r, TYPE);
    if (type == null) {
      throw new Undecodable("no " + TYPE + " header");
    }
    Map<String, String> headers = new LinkedHashMap<>();
    for (Header h : r.headers()) {
      if (!h.key().equals(ID) && !h.key().equals(TYPE)) {
        headers.put(h.key(), text(h.key() + " header", h.value()));
      }
    }
    String key = r.key() == null ? null : text("record key", r.key());
    try {
      return new Event(new EventId(id), destination, key, type, r.value(), headers);
    } catch (RuntimeException e) { // InvalidEventException: names the field
      throw new Undecodable(e.getMessage());
    }
  }

  /** A stand-in for an undecodable record: its place in the log is all that identifies it. */
  public static Event standIn(String destination, ConsumerRecord<byte[], byte[]> r) {
    return new Event(
        EventId.of("kafka-undecodable", r.topic(), r.partition(), r.offset()),
        destination,
        null,
        "once.Undecodable",
        r.value() == null || r.value().length > Event.MAX_PAYLOAD_BYTES ? new byte[0] : r.value(),
        Map.of());
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String name) throws Undecodable {
    Header h = r.headers().lastHeader(name);
    return h == null || h.value() == null ? null : text(name + " header", h.value());
  }

  private static String text(String what, byte[] bytes) throws Undecodable {
    if (bytes == null) {
      return null;
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new Undecodable(what + " is not UTF-8 (" + bytes.length + " bytes)");
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
