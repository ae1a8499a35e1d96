package dev.once.internal;

import dev.once.jdbc.JdbcStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The store part on PostgreSQL: the standard one, with a batch of markers in one statement and
 * versions in one upsert.
 */
public class PostgresStore extends JdbcStore {

  public PostgresStore() {
    this(new PostgresFlavour());
  }

  public PostgresStore(PostgresFlavour flavour) {
    super(flavour);
  }

  @Override
  public Set<String> insertMarkers(Connection c, String consumerId, List<String> eventIds)
      throws SQLException {
    return Jdbc.strings(
        c,
        """
        INSERT INTO once_inbox (consumer_id, event_id)
        SELECT ?, e FROM unnest(?::text[]) WITH ORDINALITY AS u(e, n) ORDER BY n
        ON CONFLICT DO NOTHING
        RETURNING event_id
        """,
        new HashSet<>(),
        consumerId,
        c.createArrayOf("text", eventIds.toArray(new String[0])));
  }

  @Override
  public boolean applyIfNewer(Connection c, String entity, String id, long version)
      throws SQLException {
    return Jdbc.update(
            c,
            """
            INSERT INTO once_version AS v (entity, entity_id, version)
            VALUES (?, ?, ?)
            ON CONFLICT (entity, entity_id) DO UPDATE
               SET version = EXCLUDED.version
             WHERE v.version < EXCLUDED.version
            """,
            entity,
            id,
            version)
        == 1;
  }
}
