package dev.once.app.proof;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one kind of kill came to in a verify run. Redeliveries and duplicates are what every worker
 * reported while this kind's phase ran (a lower bound: a killed worker loses its last 200 ms of
 * counts); a delivery held by a worker killed at the end of a phase may come back in the next one.
 */
final class WindowResult {
  final String window;
  long kills;
  long notReached;
  long redeliveries;
  long duplicates;
  double seconds;

  WindowResult(String window) {
    this.window = window;
  }

  Map<String, Object> toJson() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("kills", kills);
    json.put("window_not_reached_then_sigkill", notReached);
    json.put("redeliveries_seen", redeliveries);
    json.put("duplicates_suppressed", duplicates);
    json.put("seconds", Math.round(seconds * 10) / 10.0);
    return json;
  }
}
