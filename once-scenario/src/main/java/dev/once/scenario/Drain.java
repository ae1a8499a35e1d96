package dev.once.scenario;

import dev.once.WorkloadStatus;
import dev.once.spi.QueueAdmin;
import dev.once.spi.Transport;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * "Is the backlog drained?", asked in one place for every command: what still waits for a set of
 * routes, read through Once's own {@link WorkloadStatus} (outbox, retries, dead letters) and the
 * transport (queue depth, whatever the broker).
 *
 * @param outboxPending outbox rows of the routes' destinations not yet published (parked ones are
 *     dead letters, counted there)
 * @param queued deliveries waiting in the routes' queues; -1 when the transport cannot tell
 * @param retrying events of the routes' consumers waiting for their next attempt
 * @param deadLetters open dead letters of the routes' consumers and of the relay for their
 *     destinations
 */
public record Drain(long outboxPending, long queued, long retrying, long deadLetters) {

  /** A destination and the consumer (group) that reads it; a null consumer reads nothing here. */
  public record Route(String destination, String consumer) {}

  /** The warehouse scenario's two routes. */
  public static final List<Route> WAREHOUSE =
      List.of(
          new Route(WarehouseTables.ORDERS, WarehouseTables.WAREHOUSE),
          new Route(WarehouseTables.DISPATCH, WarehouseTables.NOTIFIER));

  /** Nothing waits: no pending outbox row, no queued delivery, no retry. */
  public boolean isDrained() {
    return outboxPending == 0 && queued <= 0 && retrying == 0;
  }

  /** Reads what waits on {@code routes}, the queue depth from {@code transport}. */
  public static Drain read(DataSource dataSource, Transport transport, List<Route> routes) {
    WorkloadStatus status = WorkloadStatus.read(dataSource);
    return of(status, queued(transport, routes), routes);
  }

  /**
   * Reads what waits on {@code routes} from the database alone: the queue depth is what the table
   * queue holds (messages waiting in an external broker are not seen).
   */
  public static Drain read(DataSource dataSource, List<Route> routes) {
    WorkloadStatus status = WorkloadStatus.read(dataSource);
    return of(status, sum(status.queue(), consumers(routes), false), routes);
  }

  private static Drain of(WorkloadStatus status, long queued, List<Route> routes) {
    Set<String> destinations = routes.stream().map(Route::destination).collect(Collectors.toSet());
    Set<String> consumers = consumers(routes);
    return new Drain(
        sum(status.outbox(), destinations, false),
        queued,
        sum(status.retries(), consumers, false),
        sum(status.deadLetters(), consumers, false) + sum(status.outbox(), destinations, true));
  }

  private static Set<String> consumers(List<Route> routes) {
    return routes.stream().map(Route::consumer).filter(c -> c != null).collect(Collectors.toSet());
  }

  private static long sum(List<WorkloadStatus.Backlog> rows, Set<String> names, boolean parked) {
    return rows.stream()
        .filter(b -> names.contains(b.name()))
        .mapToLong(b -> parked ? b.parked() : b.waiting())
        .sum();
  }

  private static long queued(Transport transport, List<Route> routes) {
    long total = 0;
    for (Route r : routes) {
      if (r.consumer() == null) {
        continue;
      }
      OptionalLong depth =
          transport
              .capability(QueueAdmin.class)
              .map(q -> q.depth(r.destination(), r.consumer()))
              .orElse(OptionalLong.empty());
      if (depth.isEmpty()) {
        return -1;
      }
      total += depth.getAsLong();
    }
    return total;
  }
}
