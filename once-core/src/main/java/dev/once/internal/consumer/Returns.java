package dev.once.internal.consumer;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a consumer knows of the deliveries it handed back itself — for a retry, after an {@link
 * Error} that named another delivery, on a lost database connection — so that when they come again
 * flagged redelivered they are not suspected of a crash they did not cause. It lives as long as the
 * process, which is right: after a crash nothing of it is known, and what comes back is suspect.
 * Bounded: forgetting an entry only makes its delivery a suspect.
 */
final class Returns {
  /**
   * How a delivery handed back runs when it comes again.
   *
   * @param level its suspicion level, or -1 to run in a fresh batch
   * @param attempt the attempt already counted for it while it ran alone, or null
   */
  record Resume(int level, Integer attempt) {
    static final Resume FRESH = new Resume(-1, null);
  }

  static final int CAPACITY = 10_000;

  private final Map<String, Resume> known =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Resume> eldest) {
          return size() > CAPACITY;
        }
      };

  synchronized void remember(String eventId, Resume resume) {
    known.put(eventId, resume);
  }

  /** What is known of the event's last return, forgetting it; null if nothing. */
  synchronized Resume take(String eventId) {
    return known.isEmpty() ? null : known.remove(eventId);
  }
}
