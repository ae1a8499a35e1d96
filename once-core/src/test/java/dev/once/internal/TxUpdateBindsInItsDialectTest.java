package dev.once.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.jdbc.Dialect;
import dev.once.jdbc.Dialects;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code tx.update} binds a user's parameters as the database's own statements do: an {@link
 * Instant} goes to MariaDB as the UTC {@link LocalDateTime} that Once's columns hold (its {@code
 * DATETIME} has no zone), to PostgreSQL as a UTC {@link OffsetDateTime}. It used to bind with
 * PostgreSQL's flavour on every database.
 */
class TxUpdateBindsInItsDialectTest {
  private static final Instant AT = Instant.parse("2026-12-06T10:15:30.123456Z");

  @Test
  void onMariaDbAnInstantIsBoundAsItsUtcLocalDateTime() {
    assertThat(boundBy(Dialects.mariadb()))
        .containsExactly(LocalDateTime.ofInstant(AT, ZoneOffset.UTC), "k");
  }

  @Test
  void onPostgresqlAnInstantIsBoundAsAUtcOffsetDateTime() {
    assertThat(boundBy(Dialects.postgresql()))
        .containsExactly(OffsetDateTime.ofInstant(AT, ZoneOffset.UTC), "k");
  }

  /** What {@code tx.update} hands the driver for an instant and a string. */
  private static List<Object> boundBy(Dialect dialect) {
    List<Object> bound = new ArrayList<>();
    PreparedStatement statement =
        proxy(
            PreparedStatement.class,
            (method, args) -> {
              if (method.startsWith("set")) {
                bound.add(args[1]);
              }
              return method.equals("executeUpdate") ? 1 : null;
            });
    Connection connection =
        proxy(
            Connection.class,
            (method, args) -> method.equals("prepareStatement") ? statement : null);
    new TxImpl(connection, dialect, Set.of("orders"), 1)
        .update("UPDATE t SET at = ? WHERE k = ?", AT, "k");
    return bound;
  }

  private interface Answer {
    Object answer(String method, Object[] args);
  }

  private static <T> T proxy(Class<T> type, Answer answer) {
    return type.cast(
        Proxy.newProxyInstance(
            type.getClassLoader(),
            new Class<?>[] {type},
            (p, method, args) -> answer.answer(method.getName(), args)));
  }
}
