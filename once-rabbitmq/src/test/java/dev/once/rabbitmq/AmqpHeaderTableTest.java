package dev.once.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.LongString;
import com.rabbitmq.client.impl.ValueReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Why a repeated header never reaches Once on RabbitMQ (issue #22.11): AMQP headers are a field
 * table, and amqp-client reads one into a map that keeps the <em>first</em> value of a name that
 * comes again, and its publisher cannot write a name twice. What Once decodes is that map; if a
 * client upgrade changed either, this test says so, and RabbitMQ would need the repeat check Kafka
 * and the table queue have.
 */
class AmqpHeaderTableTest {

  /** A field table on the wire: long-string entries in this order, a name twice if given so. */
  private static byte[] table(String... nameValue) throws IOException {
    ByteArrayOutputStream entries = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(entries);
    for (int i = 0; i < nameValue.length; i += 2) {
      byte[] name = nameValue[i].getBytes(StandardCharsets.UTF_8);
      byte[] value = nameValue[i + 1].getBytes(StandardCharsets.UTF_8);
      out.writeByte(name.length);
      out.write(name);
      out.writeByte('S');
      out.writeInt(value.length);
      out.write(value);
    }
    ByteArrayOutputStream framed = new ByteArrayOutputStream();
    DataOutputStream f = new DataOutputStream(framed);
    f.writeInt(entries.size());
    f.write(entries.toByteArray());
    return framed.toByteArray();
  }

  @Test
  void theClientReadsATableWithANameTwiceAsOneHeaderWithTheFirstValue() throws IOException {
    byte[] wire =
        table("once-event-id", "order-paid:1", "tenant", "acme", "once-event-id", "new:9");
    Map<String, Object> read =
        new ValueReader(new DataInputStream(new ByteArrayInputStream(wire))).readTable();
    assertThat(read).containsOnlyKeys("once-event-id", "tenant");
    assertThat(read.get("once-event-id")).isInstanceOf(LongString.class);
    assertThat(read.get("once-event-id").toString()).isEqualTo("order-paid:1");
  }

  @Test
  void thePublisherCopiesTheHeadersIntoAMapSoItCannotWriteANameTwice() {
    Map<String, Object> twice =
        new LinkedHashMap<>() {
          @Override
          public int size() {
            return 2;
          }

          @Override
          public java.util.Set<Map.Entry<String, Object>> entrySet() {
            // a map that would hand out one name twice, as a foreign encoder might write it
            java.util.Set<Map.Entry<String, Object>> s = new java.util.LinkedHashSet<>();
            s.add(Map.entry("once-event-id", "order-paid:1"));
            s.add(new java.util.AbstractMap.SimpleEntry<>("once-event-id", "new:9"));
            return s;
          }
        };
    AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().headers(twice).build();
    assertThat(props.getHeaders()).containsOnly(Map.entry("once-event-id", "new:9"));
  }
}
