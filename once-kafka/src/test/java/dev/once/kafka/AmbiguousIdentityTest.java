package dev.once.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.Once;
import dev.once.OnceListener;
import dev.once.Outcome;
import dev.once.ReceivedEvent;
import dev.once.test.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The identity on the wire is never ambiguous (issue #22.11): a foreign record that repeats one of
 * Once's headers — Kafka allows repeated header keys — is a dead letter at its first delivery,
 * never an event under one of its ids; a missing id names the header; two identical foreign records
 * share one dead letter.
 */
class AmbiguousIdentityTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static TestDatabase db;
  private static KafkaTransport transport;
  private static KafkaProducer<byte[], byte[]> foreign;

  @BeforeAll
  static void open() {
    db = TestDatabase.embedded();
    db.execute("CREATE TABLE effects (event_id text NOT NULL)");
    transport = Broker.transport().build();
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, Broker.bootstrap());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    foreign = new KafkaProducer<>(p);
  }

  @AfterAll
  static void close() {
    foreign.close();
    transport.close();
    db.close();
  }

  private static final class Seen implements OnceListener {
    final List<Outcome> outcomes = new CopyOnWriteArrayList<>();

    @Override
    public void outcome(ReceivedEvent event, Outcome outcome, Duration took) {
      outcomes.add(outcome);
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Headers name, value, name, value… in this order, repeats kept. */
  private static RecordHeaders headers(String... nameValue) {
    RecordHeaders h = new RecordHeaders();
    for (int i = 0; i < nameValue.length; i += 2) {
      h.add(nameValue[i], nameValue[i + 1] == null ? null : utf8(nameValue[i + 1]));
    }
    return h;
  }

  private static void send(String dest, String key, String body, RecordHeaders headers)
      throws Exception {
    foreign
        .send(
            new ProducerRecord<>(
                transport.settings().topic(dest),
                null,
                key == null ? null : utf8(key),
                utf8(body),
                headers))
        .get(10, TimeUnit.SECONDS);
  }

  /** Runs a consumer on {@code dest} until the lag is 0, the {@code last} event processed. */
  private static Seen consume(String dest, Event last) {
    Seen seen = new Seen();
    assertThat(transport.publish(List.of(last), WAIT).confirmed().cardinality()).isEqualTo(1);
    try (Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations(dest)
                .listener(seen)
                .build();
        Consumer c =
            once.consumer("warehouse")
                .subscribe(
                    dest, (tx, ev) -> tx.update("INSERT INTO effects VALUES (?)", ev.id().value()))
                .build()
                .start()) {
      await().atMost(WAIT).until(() -> effects(last.id().value()) == 1);
      await().atMost(WAIT).until(() -> transport.depth(dest, "warehouse").orElse(-1) == 0);
    }
    return seen;
  }

  private static long effects(String id) {
    return db.count("SELECT count(*) FROM effects WHERE event_id = ?", id);
  }

  /** The error messages of the destination's malformed dead letters, oldest first. */
  private static List<String> deadLetterErrors(String dest) throws SQLException {
    List<String> errors = new ArrayList<>();
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT error_message FROM once_dead_letter WHERE destination = ?"
                    + " AND attempts = 1 AND event_id LIKE 'malformed:%' ORDER BY id")) {
      ps.setString(1, dest);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          errors.add(rs.getString(1));
        }
      }
    }
    return errors;
  }

  @Test
  void aCopyOfAProcessedEventWithASecondIdAppendedIsADeadLetterNotASecondEffect() throws Exception {
    String dest = PipelineNames.unique("twice");
    transport.declare(dest, "warehouse");
    Event paid = Event.of(EventId.of("paid", dest), dest, "k", "Paid", "{}");
    consume(dest, paid); // processed: one effect
    // the copy with a new id appended (the last one won before: a second effect under the new id)
    send(dest, "k", "{}", headers("once-event-id", paid.id().value(), "once-event-id", "new:1"));
    // a new event with a processed id put before its own (it was dropped as a DUPLICATE)
    send(dest, "k", "{}", headers("once-event-id", paid.id().value() + ":x", "once-type", "Paid"));
    send(
        dest,
        "k",
        "{}",
        headers("once-event-id", paid.id().value(), "once-event-id", "new:2", "once-type", "Paid"));
    Seen seen = consume(dest, Event.of(EventId.of("after", dest), dest, "k", "Paid", "{}"));

    assertThat(effects(paid.id().value())).as("the processed event's effect stays one").isOne();
    assertThat(effects("new:1") + effects("new:2")).as("no effect under the appended id").isZero();
    assertThat(effects(paid.id().value() + ":x")).as("a well-formed record").isOne();
    // a malformed delivery has no key: it is handed out beside the key's other records
    assertThat(deadLetterErrors(dest))
        .containsExactlyInAnyOrder(
            "header 'once-event-id' appears 2 times (Once's headers may appear once)",
            "header 'once-event-id' appears 2 times (Once's headers may appear once)");
    assertThat(seen.outcomes)
        .containsExactlyInAnyOrder(
            Outcome.DEAD, Outcome.PROCESSED, Outcome.DEAD, Outcome.PROCESSED);
  }

  @Test
  void everyOnceHeaderTwiceAndAHeaderKeyBesideTheRecordKeyAreDeadLettersAtTheFirstDelivery()
      throws Exception {
    String dest = PipelineNames.unique("repeats");
    transport.declare(dest, "warehouse");
    send(dest, "k", "{}", headers("once-event-id", "a:1", "once-type", "A", "once-type", "B"));
    send(dest, "k", "{}", headers("once-event-id", "a:2", "once-type", "A", "once-key", "other"));
    send(
        dest,
        "k",
        "{}",
        headers(
            "once-event-id",
            "a:3",
            "once-type",
            "A",
            "once-content-type",
            "application/json",
            "once-content-type",
            "text/plain"));
    send(
        dest,
        "k",
        "{}",
        headers(
            "once-event-id",
            "a:4",
            "once-type",
            "A",
            "once-replay-for",
            "someone",
            "once-replay-for",
            "else"));
    // a replay header without a value (before: the poll loop failed on it, again and again)
    send(
        dest,
        "k",
        "{}",
        headers("once-event-id", "a:7", "once-type", "A", "once-replay-for", null));
    // a foreign header twice is no identity: its last value is kept
    send(dest, "k", "{}", headers("once-event-id", "a:5", "once-type", "A", "t", "1", "t", "2"));
    // a once-key header without a record key is dropped (the record key is Kafka's key)
    send(dest, null, "{}", headers("once-event-id", "a:6", "once-type", "A", "once-key", "k"));
    consume(dest, Event.of(EventId.of("after", dest), dest, "k", "Paid", "{}"));

    assertThat(deadLetterErrors(dest))
        .containsExactlyInAnyOrder(
            "header 'once-type' appears 2 times (Once's headers may appear once)",
            "header 'once-key' appears 2 times (Once's headers may appear once)",
            "header 'once-content-type' appears 2 times (Once's headers may appear once)",
            "header 'once-replay-for' appears 2 times (Once's headers may appear once)",
            "header 'once-replay-for' is null");
    assertThat(effects("a:1") + effects("a:2") + effects("a:3") + effects("a:4") + effects("a:7"))
        .isZero();
    assertThat(effects("a:5") + effects("a:6")).isEqualTo(2);
  }

  @Test
  void aRecordWithoutAnIdIsADeadLetterNamingTheHeaderNotAMessageIdKafkaDoesNotHave()
      throws Exception {
    String dest = PipelineNames.unique("noid");
    transport.declare(dest, "warehouse");
    send(dest, "k", "no id", headers("once-type", "A"));
    consume(dest, Event.of(EventId.of("after", dest), dest, "k", "Paid", "{}"));
    assertThat(deadLetterErrors(dest)).containsExactly("once-event-id missing");
  }

  /**
   * Intended: a malformed record has no id of its own, so its stand-in id is the hash of its
   * content, the same on every delivery; a second identical record (the producer sent it twice)
   * cannot be told from a redelivery of the first and joins its open dead letter — one row, both
   * records acknowledged, each delivery's outcome DEAD.
   */
  @Test
  void twoIdenticalForeignRecordsAtDifferentOffsetsShareOneDeadLetter() throws Exception {
    String dest = PipelineNames.unique("same");
    transport.declare(dest, "warehouse");
    send(dest, "k", "not an event", headers("once-type", "A"));
    send(dest, "k", "not an event", headers("once-type", "A"));
    send(dest, "k", "not an event either", headers("once-type", "A"));
    Seen seen = consume(dest, Event.of(EventId.of("after", dest), dest, "k", "Paid", "{}"));

    assertThat(deadLetterErrors(dest)).hasSize(2);
    assertThat(
            db.count(
                "SELECT count(DISTINCT event_id) FROM once_dead_letter WHERE destination = ?",
                dest))
        .isEqualTo(2);
    assertThat(seen.outcomes)
        .containsExactlyInAnyOrder(Outcome.DEAD, Outcome.DEAD, Outcome.DEAD, Outcome.PROCESSED);
  }
}
