package dev.once.rabbitmq.internal;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The events of deliveries this transport's receivers held when the broker connection was cut under
 * them (not closed by the application, not a crash of the process): the broker hands them out again
 * flagged redelivered, but they crashed nothing. Kept per queue, for as long as this process runs,
 * bounded (forgetting one only makes its next delivery a suspect).
 */
public final class LostDeliveries {
  static final int CAPACITY = 10_000;

  private final Set<String> lost = new LinkedHashSet<>();

  synchronized void add(String queue, Iterable<String> eventIds) {
    for (String id : eventIds) {
      lost.add(queue + '\n' + id);
      if (lost.size() > CAPACITY) {
        lost.remove(lost.iterator().next());
      }
    }
  }

  /** Whether {@code eventId} was lost with a cut connection on {@code queue}, forgetting it. */
  synchronized boolean take(String queue, String eventId) {
    return !lost.isEmpty() && lost.remove(queue + '\n' + eventId);
  }
}
