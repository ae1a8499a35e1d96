package dev.once.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.test.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An instant bound as text with no type ({@link TimestamptzText#bind}, the table queue's claim) is
 * the instant pgjdbc binds from an {@code OffsetDateTime}, compared and assigned as a {@code
 * timestamptz}: rounded to the microsecond half up, before 1970 and after, at the ends of the years
 * it writes as text, and outside them (bound as a date-time then).
 */
class TimestamptzTextTest {
  private static final List<Instant> INSTANTS =
      List.of(
          Instant.parse("2026-12-07T10:44:57.516123Z"),
          Instant.parse("2026-12-07T10:44:57.516123499Z"),
          Instant.parse("2026-12-07T10:44:57.516123500Z"),
          Instant.parse("2026-12-31T23:59:59.999999500Z"), // rounds into the next year
          Instant.parse("2024-02-29T00:00:00Z"),
          Instant.parse("1969-12-31T23:59:59.000001Z"),
          Instant.parse("1900-03-01T12:00:00Z"),
          Instant.parse("0001-01-01T00:00:00Z"),
          Instant.parse("9999-12-31T23:59:59.999999Z"),
          Instant.parse("+10000-01-01T00:00:00Z"),
          Instant.EPOCH);

  @Test
  void theTextIsTheInstantPgjdbcBinds() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("CREATE TABLE at_test (id int PRIMARY KEY, at timestamptz NOT NULL)");
      try (Connection c = db.dataSource().getConnection();
          PreparedStatement insert =
              c.prepareStatement("INSERT INTO at_test (id, at) VALUES (?, ?)");
          PreparedStatement same =
              c.prepareStatement("SELECT count(*) FROM at_test WHERE id = ? AND at = ?")) {
        for (int i = 0; i < INSTANTS.size(); i++) {
          Instant at = INSTANTS.get(i);
          insert.setInt(1, i);
          TimestamptzText.bind(insert, 2, at);
          insert.executeUpdate();
          same.setInt(1, i);
          same.setObject(2, OffsetDateTime.ofInstant(at, ZoneOffset.UTC));
          try (ResultSet rs = same.executeQuery()) {
            rs.next();
            assertThat(rs.getInt(1)).as("%s, bound as %s", at, text(at)).isEqualTo(1);
          }
        }
      }
    }
  }

  @Test
  void theTextIsTheInstantInUtcToTheMicrosecond() {
    assertThat(text(Instant.parse("2026-12-07T10:44:57.516123500Z")))
        .isEqualTo("2026-12-07 10:44:57.516124+00");
    assertThat(text(Instant.parse("2026-12-31T23:59:59.999999500Z")))
        .isEqualTo("2027-01-01 00:00:00.000000+00");
    assertThat(text(Instant.parse("1969-12-31T23:59:59.000001Z")))
        .isEqualTo("1969-12-31 23:59:59.000001+00");
    assertThat(text(Instant.parse("+10000-01-01T00:00:00Z"))).isNull();
  }

  private static String text(Instant at) {
    return TimestamptzText.of(at);
  }
}
