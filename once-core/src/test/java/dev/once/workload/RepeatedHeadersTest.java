package dev.once.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.once.Consumer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.InvalidEventException;
import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A table queue row is a list of headers beside its id, key and type columns; one that names a Once
 * header twice — twice in the headers column, or once there beside its column — has an ambiguous
 * identity and is dead-lettered at its first delivery, on PostgreSQL and MariaDB (issue #22.11).
 * Once itself never writes such a row: {@code tx.publish} refuses those headers.
 */
class RepeatedHeadersTest {
  private static final String TWICE = " (Once's headers may appear once)";

  @Test
  void aQueueRowThatRepeatsAOnceHeaderIsADeadLetterOnPostgres() throws Exception {
    try (Rig rig = new Rig(TestDatabase.embedded())) {
      repeatedHeadersAreDeadLetters(rig);
    }
  }

  @Test
  void aQueueRowThatRepeatsAOnceHeaderIsADeadLetterOnMariaDb() throws Exception {
    try (Rig rig = new Rig(TestDatabase.mariadb())) {
      repeatedHeadersAreDeadLetters(rig);
    }
  }

  private static void repeatedHeadersAreDeadLetters(Rig rig) throws Exception {
    rig.db.execute("CREATE TABLE effects (event_id VARCHAR(200))");
    Consumer consumer =
        rig.consumer(
            "warehouse",
            Rig.fast(5),
            (tx, e) -> tx.update("INSERT INTO effects VALUES (?)", e.id().value()));
    List<Event> rows = new ArrayList<>();
    for (int i = 1; i <= 7; i++) {
      rows.add(Event.of(EventId.of("r", i), "orders", "k", "OrderPaid", "{}"));
    }
    assertThat(rig.transport.publish(rows, Duration.ofSeconds(10)).confirmed().cardinality())
        .isEqualTo(7);
    headers(rig, "r:1", "once-event-id", "other:1"); // beside the event_id column
    headers(rig, "r:2", "once-event-id", "x:1", "once-event-id", "x:2");
    headers(rig, "r:3", "once-content-type", "a/b", "once-content-type", "c/d");
    headers(rig, "r:4", "once-key", "other"); // beside the event_key column
    headers(rig, "r:5", "once-type", "Other"); // beside the event_type column
    headers(rig, "r:6", "t", "1", "t", "2"); // not Once's: the last value is kept

    rig.drain(consumer);

    assertThat(strings(rig, "SELECT event_id FROM effects ORDER BY event_id"))
        .containsExactly("r:6", "r:7");
    assertThat(
            strings(
                rig,
                "SELECT error_message FROM once_dead_letter WHERE consumer_id = 'warehouse'"
                    + " AND attempts = 1 AND event_id LIKE 'malformed:%' ORDER BY error_message"))
        .containsExactly(
            "header 'once-content-type' appears 2 times" + TWICE,
            "header 'once-event-id' appears 2 times" + TWICE,
            "header 'once-event-id' appears 3 times" + TWICE,
            "header 'once-key' appears 2 times" + TWICE,
            "header 'once-type' appears 2 times" + TWICE);
    assertThat(rig.db.count("SELECT count(*) FROM once_queue")).as("acknowledged").isZero();
  }

  @Test
  void txPublishRefusesAHeaderThatWouldSayTheIdKeyOrTypeASecondTime() throws Exception {
    try (Rig rig = new Rig(TestDatabase.embedded())) {
      for (String name : List.of("once-event-id", "once-key", "once-type")) {
        Event e =
            Event.builder()
                .id(EventId.of("paid", name))
                .destination("orders")
                .type("Paid")
                .payload("{}")
                .header(name, "x")
                .build();
        assertThatThrownBy(() -> rig.once.inTransaction(tx -> tx.publish(e)))
            .as(name)
            .isInstanceOfSatisfying(
                InvalidEventException.class, x -> assertThat(x.field()).isEqualTo("event.headers"))
            .hasMessageContaining("'" + name + "' is Once's own header");
      }
      assertThat(rig.db.count("SELECT count(*) FROM once_outbox")).as("nothing written").isZero();
    }
  }

  /** Replaces the headers column of the row of {@code eventId}, in the database's own form. */
  private static void headers(Rig rig, String eventId, String... nameValue) throws SQLException {
    try (Connection c = rig.db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("UPDATE once_queue SET headers = ? WHERE event_id = ?")) {
      if (rig.db.isMariaDb()) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < nameValue.length; i += 2) {
          text.append(text.length() == 0 ? "" : "&")
              .append(nameValue[i])
              .append('=')
              .append(nameValue[i + 1].replace(":", "%3A").replace("/", "%2F"));
        }
        ps.setString(1, text.toString());
      } else {
        ps.setArray(1, c.createArrayOf("text", nameValue));
      }
      ps.setString(2, eventId);
      assertThat(ps.executeUpdate()).as(eventId).isEqualTo(1);
    }
  }

  private static List<String> strings(Rig rig, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = rig.db.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
