package dev.once.app.proof;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The table queue's deliveries taken at least once, by row and times taken: a delivery a dead child
 * held is back once its row was taken again (its count went up) or acknowledged (the row is gone).
 * Read by row and count, not by time: no clock of the database's or of the children's is needed.
 */
final class HeldDeliveries {
  private static final String TAKEN =
      "SELECT id, delivery_count FROM once_queue WHERE delivery_count > 0";

  private final DataSource dataSource;

  HeldDeliveries(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** The deliveries taken so far, each with the times it was taken. */
  Map<Long, Integer> taken() {
    Map<Long, Integer> taken = new HashMap<>();
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(TAKEN)) {
      while (rs.next()) {
        taken.put(rs.getLong(1), rs.getInt(2));
      }
    } catch (SQLException e) {
      return null; // unknown: the caller waits as it would without the table queue
    }
    return taken;
  }

  /**
   * True when no delivery of {@code before} is still where it was then: each was acknowledged or
   * taken again since.
   */
  boolean allBack(Map<Long, Integer> before) {
    Map<Long, Integer> now = taken();
    if (now == null) {
      return false;
    }
    return before.entrySet().stream().noneMatch(e -> e.getValue().equals(now.get(e.getKey())));
  }
}
