package dev.once.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.once.jdbc.SqlList;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The part of {@link DialectContract} that checks the flavour's primitives: instants, lists,
 * duplicate keys, missing tables, locks.
 */
interface FlavourContract extends ContractFixture {
  // ---- the flavour's primitives

  @Test
  default void anInstantComesBackAsItWasBoundToTheMicrosecond() throws SQLException {
    Instant at = Instant.parse("2031-05-06T07:08:09.123456Z");
    String dest = unique("d");
    tx(c -> dialect().store().insertOutbox(c, event(dest, unique("e"), Map.of()), 1));
    Instant read =
        tx(
            c -> {
              long id =
                  sql().queryLong(c, "SELECT max(id) FROM once_outbox WHERE destination = ?", dest);
              dialect().store().markPublishFailed(c, id, "refused", at);
              return sql()
                  .first(
                      c,
                      "SELECT next_attempt_at FROM once_outbox WHERE id = ?",
                      rs -> sql().instant(rs, "next_attempt_at"),
                      id);
            });
    assertEquals(at, read);
  }

  @Test
  default void aListBindsAsOneConditionAndAnEmptyListMatchesNothing() throws SQLException {
    String dest = unique("d");
    tx(
        c -> {
          for (int i = 0; i < 3; i++) {
            dialect().store().insertOutbox(c, event(dest, unique("e"), Map.of()), i);
          }
          return null;
        });
    SqlList partitions = SqlList.of("integer", List.of(0, 2));
    SqlList none = SqlList.of("integer", List.of());
    String count = "SELECT count(*) FROM once_outbox WHERE destination = ? AND ";
    assertEquals(
        2,
        count(
            c ->
                sql()
                    .queryLong(
                        c, count + sql().in("key_partition", partitions), dest, partitions)));
    assertEquals(
        0, count(c -> sql().queryLong(c, count + sql().in("key_partition", none), dest, none)));
  }

  @Test
  default void aDuplicateKeyIsClassifiedAsOneAndSkippedByInsertUnlessDuplicate()
      throws SQLException {
    String consumer = unique("c");
    String insert = "INSERT INTO once_inbox (consumer_id, event_id) VALUES (?, ?)";
    assertTrue(
        yes(c -> sql().insertUnlessDuplicate(c, insert, "consumer_id, event_id", consumer, "e")));
    assertFalse(
        yes(c -> sql().insertUnlessDuplicate(c, insert, "consumer_id, event_id", consumer, "e")));
    SQLException e =
        assertThrows(SQLException.class, () -> tx(c -> sql().update(c, insert, consumer, "e")));
    assertTrue(dialect().flavour().isDuplicateKey(e), "duplicate key: " + e);
    assertFalse(dialect().isTransient(e), "a duplicate key is not transient");
  }

  @Test
  default void aMissingTableIsClassifiedAsOneAndNotAsTransient() {
    SQLException e =
        assertThrows(
            SQLException.class,
            () -> tx(c -> sql().queryLong(c, "SELECT count(*) FROM once_no_such_table")));
    assertTrue(dialect().isMissingTable(e), "missing table: " + e);
    assertFalse(dialect().isTransient(e));
    assertFalse(dialect().flavour().isDuplicateKey(e));
  }

  @Test
  default void theRetentionLockIsHeldByOneSessionAtATime() throws SQLException {
    try (Connection a = dataSource().getConnection();
        Connection b = dataSource().getConnection()) {
      assertTrue(dialect().retention().tryRetentionLock(a));
      try {
        assertFalse(dialect().retention().tryRetentionLock(b), "a second session");
      } finally {
        dialect().retention().retentionUnlock(a);
      }
      assertTrue(dialect().retention().tryRetentionLock(b), "after the first let go");
      dialect().retention().retentionUnlock(b);
    }
  }
}
