package dev.once.internal;

import dev.once.ConfigurationException;
import dev.once.internal.postgres.PostgresListener;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the running engines of one Once take of its pool's connections, checked at every {@code
 * start()}: each engine tells what it holds, and a pool too small for them is refused before the
 * engine starts, naming the number needed, the pool's size and the pool's setting — instead of
 * threads that wait for a connection their neighbours hold and a stall blamed on the database.
 *
 * <p>Two numbers: {@code all at once}, every engine thread with its connections at the same time
 * plus one for a producer's transaction (a pool that large never makes an engine wait); and {@code
 * at least}, the connections held for good (a {@code LISTEN}), plus the extra connection each
 * thread that holds two takes (a relay writing the table queue's rows), plus one: below it a thread
 * can wait for ever for a connection that another thread waiting as well holds. A pool below {@code
 * at least} is refused; one below {@code all at once} works, its threads taking turns.
 */
public final class PoolNeeds {
  private static final Logger log = LoggerFactory.getLogger(PoolNeeds.class);

  /**
   * What one engine takes.
   *
   * @param what for messages, e.g. {@code consumer shipping (4 workers)}
   * @param threads its threads, each holding a connection while it works
   * @param extraPerThread connections each thread takes while it holds its own (0 or 1)
   * @param heldForGood connections held for as long as it runs ({@code LISTEN})
   */
  public record Need(String what, int threads, int extraPerThread, int heldForGood) {
    int allAtOnce() {
      return threads * (1 + extraPerThread) + heldForGood;
    }

    int atLeast() {
      return threads * extraPerThread + heldForGood;
    }
  }

  /**
   * The one connection LISTENing for the outbox and the table queue (see {@link PostgresListener}).
   */
  public static final Need LISTEN =
      new Need("the LISTEN (one for the outbox and the table queue)", 0, 0, 1);

  /** The same on a connection of its own, outside the pool: none of the pool's. */
  public static final Need LISTEN_OUTSIDE =
      new Need("the LISTEN (its own connection, outside the pool)", 0, 0, 0);

  private final Supplier<Optional<PoolSize>> pool;
  private final Map<Object, Need> running = new LinkedHashMap<>();

  public PoolNeeds(Supplier<Optional<PoolSize>> pool) {
    this.pool = pool;
  }

  /**
   * Adds {@code engine}'s needs (each of {@code needs} under its own key, so that a connection
   * several engines share, such as a {@code LISTEN}, counts once), logs what all running engines
   * need, and refuses a pool too small for them.
   *
   * @throws ConfigurationException naming the number needed, the pool's size and its setting; the
   *     needs are then not added
   */
  public synchronized void starting(Map<Object, Need> needs) {
    Map<Object, Need> after = new LinkedHashMap<>(running);
    after.putAll(needs);
    int allAtOnce = 1 + after.values().stream().mapToInt(Need::allAtOnce).sum();
    int atLeast = 1 + after.values().stream().mapToInt(Need::atLeast).sum();
    String parts =
        after.values().stream()
                .collect(
                    Collectors.groupingBy(Need::what, LinkedHashMap::new, Collectors.counting()))
                .entrySet()
                .stream()
                .map(e -> e.getValue() == 1 ? e.getKey() : e.getValue() + " × " + e.getKey())
                .collect(Collectors.joining(", "))
            + " and 1 for a producer's transaction";
    Optional<PoolSize> size = pool.get();
    if (size.isPresent() && size.get().size() < atLeast) {
      PoolSize p = size.get();
      throw new ConfigurationException(
          "dataSource",
          "is pool '"
              + p.name()
              + "' of "
              + p.size()
              + " connections; Once needs at least "
              + atLeast
              + " to run "
              + parts
              + " without a thread waiting for ever for a connection, and "
              + allAtOnce
              + " to run them all at once: set the pool's "
              + p.property()
              + " to "
              + allAtOnce
              + " or more (Spring Boot: spring.datasource.hikari.maximum-pool-size), or run"
              + " fewer workers or relays in this process");
    }
    running.putAll(needs);
    String pooled =
        size.map(p -> "pool '" + p.name() + "' has " + p.size() + " (" + p.property() + ")")
            .orElse("the pool's size is unknown");
    String verdict =
        size.isEmpty() || size.get().size() >= allAtOnce
            ? ""
            : "; with fewer than " + allAtOnce + " its threads take turns for connections";
    log.info(
        "Once needs {} connections ({} at least) for {}: {}{}",
        allAtOnce,
        atLeast,
        parts,
        pooled,
        verdict);
  }

  /** {@code engine} stopped: its needs are no longer counted (shared connections stay). */
  public synchronized void stopped(Object engine) {
    running.remove(engine);
  }
}
