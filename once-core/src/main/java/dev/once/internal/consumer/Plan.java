package dev.once.internal.consumer;

import dev.once.spi.Delivery;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** One poll's deliveries as groups, with what the store knows of them. */
final class Plan {
  final List<Group> groups;

  /** Failures recorded, by event id; attempts counted before a run are added. */
  final Map<String, Attempts.Known> known;

  /** Suspicion levels as stored, by event id; raised ones are updated. */
  final Map<String, Integer> stored;

  /** The attempt counted for an event that runs alone, before its handler. */
  final Map<String, Integer> counted;

  Plan(
      List<Group> groups,
      Map<String, Attempts.Known> known,
      Map<String, Integer> stored,
      Map<String, Integer> counted) {
    this.groups = groups;
    this.known = known;
    this.stored = stored;
    this.counted = counted;
  }

  /** The known attempts of the events whose attempt was counted before their run. */
  Map<String, Attempts.Known> started() {
    Map<String, Attempts.Known> started = new HashMap<>();
    counted.keySet().forEach(id -> started.put(id, known.get(id)));
    return started;
  }

  /** Members of {@code g} with a suspicion row, which the group's commit deletes. */
  List<String> toClear(Group g) {
    List<String> ids = new ArrayList<>();
    for (Delivery d : g.members()) {
      String id = d.event().id().value();
      if (stored.getOrDefault(id, 0) > 0 && !ids.contains(id)) {
        ids.add(id);
      }
    }
    return ids;
  }
}
