package dev.once.internal.postgres;

import dev.once.Event;
import dev.once.jdbc.Sql;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A key lane's rows of a batch, in one statement ({@link PostgresQueue#enqueueInLane}). */
final class LaneRows {
  private LaneRows() {}

  /**
   * (headers of every event, now, now, event ids, destinations, keys, types, payloads, each event's
   * first and last header in the first array, traces, consumer group) → a lane row per event, in
   * the arrays' order. One statement for a batch: as a JDBC batch of single-row inserts PostgreSQL
   * executed each row on its own, about 1 ms a row under load, and the one receiver of an ordered
   * RabbitMQ group spent its time there (docs/ORDERING.md, "Ordered on RabbitMQ"). The headers of
   * every event go in one flat array, each row taking its slice: unnest would flatten an array per
   * row. The ids come from the sequence after the sort, so in the arrays' order. A row of a parked
   * key is marked {@code parked} as {@code PostgresQueue.PARKED_ON_ENQUEUE} does it.
   */
  static final String INSERT_LANE =
      """
      INSERT INTO once_queue
             (consumer_group, event_id, destination, event_key, event_type, payload, headers, trace,
              enqueued_at, visible_at, in_key_order, parked)
      SELECT b.consumer_group, u.event_id, u.destination, u.event_key, u.event_type, u.payload,
             (?::text[])[u.first_header:u.last_header], u.trace, ?, ?, b.in_key_order,
             EXISTS (SELECT 1 FROM once_parked_key p
                      WHERE p.consumer_group = b.consumer_group
                        AND p.destination = b.destination
                        AND p.event_key = u.event_key
                        FOR SHARE)
        FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::bytea[], ?::int[], ?::int[],
                    ?::bytea[])
             WITH ORDINALITY
             AS u(event_id, destination, event_key, event_type, payload, first_header,
                  last_header, trace, n)
        JOIN once_queue_binding b
          ON b.destination = u.destination AND b.consumer_group = ? AND b.in_key_order = true
       ORDER BY u.n
      """;

  /**
   * The lane's rows of a batch in one statement ({@link #INSERT_LANE}); 1 for every event when each
   * got its row, else 0 for every event (the group is not bound in key order).
   */
  static int[] enqueue(Sql sql, Connection c, List<Event> events, String consumerId, Instant now)
      throws SQLException {
    int n = events.size();
    String[] ids = new String[n];
    String[] destinations = new String[n];
    String[] keys = new String[n];
    String[] types = new String[n];
    byte[][] payloads = new byte[n][];
    Integer[] firstHeader = new Integer[n];
    Integer[] lastHeader = new Integer[n];
    byte[][] traces = new byte[n][];
    List<String> headers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Event e = events.get(i);
      ids[i] = e.id().value();
      destinations[i] = e.destination();
      keys[i] = e.key();
      types[i] = e.type();
      payloads[i] = e.payload();
      traces[i] = PostgresFlavour.packedTrace(e.headers());
      firstHeader[i] = headers.size() + 1;
      headers.addAll(Arrays.asList(PostgresFlavour.storedHeaders(e.headers(), traces[i])));
      lastHeader[i] = headers.size();
    }
    int written =
        sql.update(
            c,
            INSERT_LANE,
            headers.toArray(new String[0]),
            now,
            now,
            ids,
            destinations,
            keys,
            types,
            payloads,
            firstHeader,
            lastHeader,
            traces,
            consumerId);
    int[] counts = new int[n];
    Arrays.fill(counts, written == n ? 1 : 0);
    return counts;
  }
}
