package dev.once.relayorder;

import dev.once.Event;
import dev.once.spi.ForwardingTransport;
import dev.once.spi.InDatabasePublish;
import dev.once.spi.PublishResult;
import dev.once.spi.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * A broker that refuses (nacks) the events whose ids are in {@link #refused}, and takes the others
 * of the same batch: a refusal the relay charges and backs off, then parks.
 */
public final class RefusingTransport extends ForwardingTransport {
  static final String REFUSAL = "nacked by the broker (not stored)";
  final Set<String> refused = ConcurrentHashMap.newKeySet();

  /** Events refused at their first publish only. */
  private final Predicate<String> refusedOnce;

  private final Set<String> refusedBefore = ConcurrentHashMap.newKeySet();

  RefusingTransport(Transport delegate) {
    this(delegate, id -> false);
  }

  public RefusingTransport(Transport delegate, Predicate<String> refusedOnce) {
    super(delegate);
    this.refusedOnce = refusedOnce;
  }

  /**
   * A broker keeps its messages outside the database, and confirms each one on its own: the table
   * queue's {@link InDatabasePublish} (a batch whole or not at all) is hidden.
   */
  @Override
  public <C> Optional<C> capability(Class<C> type) {
    return type == InDatabasePublish.class ? Optional.empty() : super.capability(type);
  }

  /** Hands the broker only the events it takes; the refused ones never reach it. */
  @Override
  public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
    List<Integer> taken = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      String id = batch.get(i).id().value();
      boolean refuse = refused.contains(id) || (refusedOnce.test(id) && refusedBefore.add(id));
      if (!refuse) {
        taken.add(i);
      }
    }
    PublishResult r = super.publish(taken.stream().map(batch::get).toList(), confirmTimeout);
    BitSet confirmed = new BitSet();
    BitSet lost = new BitSet();
    BitSet unroutable = new BitSet();
    Map<Integer, String> failures = new HashMap<>();
    for (int j = 0; j < taken.size(); j++) {
      int i = taken.get(j);
      confirmed.set(i, r.isConfirmed(j));
      lost.set(i, r.lost().get(j));
      unroutable.set(i, r.unroutable().get(j));
      if (r.failures().containsKey(j)) {
        failures.put(i, r.failures().get(j));
      }
    }
    for (int i = 0; i < batch.size(); i++) {
      if (!taken.contains(i)) {
        failures.put(i, REFUSAL);
      }
    }
    return new PublishResult(confirmed, failures, lost, unroutable);
  }
}
