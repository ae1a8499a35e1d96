package dev.once.dashboard;

import dev.once.DeadLetter;
import dev.once.DeadLetterAction;
import dev.once.DeadLetterGroup;
import dev.once.OperationStatus;
import dev.once.ParkedKey;
import dev.once.Tracing;
import dev.once.WorkloadStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The JSON shapes of the API (see docs/DASHBOARD.md); never a payload value. */
final class Views {
  private Views() {}

  static Map<String, Object> point(String name, Sampler.Point p, Rates r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("consumer", name);
    m.put("waiting", p.waiting());
    m.put("oldest_seconds", p.oldestSeconds());
    m.put("retry_waiting", p.retryWaiting());
    m.put("dead_open", p.deadOpen());
    Map<String, Object> rates = new LinkedHashMap<>();
    rates.put("arrival", r.arrival());
    rates.put("completion", r.completion());
    rates.put("retry", r.retry());
    rates.put("duplicate", r.duplicate());
    rates.put("dead", r.dead());
    m.put("rates_per_second", rates);
    return m;
  }

  /** Per-second rates averaged over some samples; duplicate is null when not known. */
  record Rates(double arrival, double completion, double retry, Double duplicate, double dead) {}

  static Map<String, Object> outbox(WorkloadStatus.Backlog b) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("destination", b.name());
    m.put("pending", b.waiting());
    m.put("parked", b.parked());
    m.put("oldest_seconds", Json.seconds(b.oldestAge()));
    return m;
  }

  /** An ordered consumer's parked keys: how many, the events behind them, the oldest's age. */
  static Map<String, Object> parkedKeys(WorkloadStatus.Backlog b) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("consumer", b.name());
    m.put("parked", b.parked());
    m.put("waiting", b.waiting());
    m.put("oldest_seconds", Json.seconds(b.oldestAge()));
    return m;
  }

  static Map<String, Object> state(OperationStatus.StateCount s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("state", s.state().name());
    m.put("count", s.count());
    m.put("oldest_seconds", Json.seconds(s.oldestAge()));
    m.put("uncertain", isUncertain(s.state().name()));
    return m;
  }

  static boolean isUncertain(String state) {
    return state.equals("UNKNOWN") || state.equals("ABANDONED");
  }

  static Map<String, Object> uncertain(OperationStatus.Uncertain u) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("operation_id", u.operationId());
    m.put("provider", u.provider());
    m.put("idempotency_key", u.idempotencyKey());
    m.put("state", u.state().name());
    m.put("attempts", u.attempts());
    m.put("age_seconds", Json.seconds(u.age()));
    m.put("next_attempt_at", Json.time(u.nextAttemptAt()));
    m.put("resolution", u.resolution());
    m.put("last_error", u.lastError());
    return m;
  }

  static Map<String, Object> group(DeadLetterGroup g) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("consumer", g.consumerId());
    m.put("type", g.type());
    m.put("fingerprint", g.fingerprint());
    m.put("error_class", g.errorClass());
    m.put("count", g.count());
    m.put("first_dead_at", Json.time(g.firstDeadAt()));
    m.put("last_dead_at", Json.time(g.lastDeadAt()));
    m.put("sample_message", g.sampleMessage());
    return m;
  }

  /** A row of the list: no payload at all. */
  static Map<String, Object> row(DeadLetter d) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", d.id());
    m.put("consumer", d.consumerId());
    m.put("event_id", d.event().id().value());
    m.put("type", d.event().type());
    m.put("attempts", d.attempts());
    m.put("error_class", d.errorClass());
    m.put("fingerprint", d.errorFingerprint());
    m.put("status", d.status().value());
    m.put("dead_at", Json.time(d.deadAt()));
    return m;
  }

  /** The detail: the row, the event's metadata, errors, actions; the payload redacted. */
  /**
   * @param parked the keys this dead letter heads (an ordered consumer parked them behind it);
   *     empty for most
   */
  static Map<String, Object> detail(
      DeadLetter d, List<DeadLetterAction> actions, List<ParkedKey> parked) {
    Map<String, Object> m = row(d);
    m.put("destination", d.event().destination());
    m.put("key", d.event().key());
    m.put("headers", d.event().headers());
    m.put("trace_id", Tracing.traceId(d.event()));
    m.put("first_failed_at", Json.time(d.firstFailedAt()));
    m.put("last_failed_at", Json.time(d.lastFailedAt()));
    m.put("error_message", d.errorMessage());
    m.put("final_attempt_crashed", d.finalAttemptCrashed());
    m.put("resolved_at", Json.time(d.resolvedAt()));
    m.put("payload", PayloadView.redacted(d.event().payload()));
    m.put("parked_key", parked.isEmpty() ? null : parkedKey(parked.get(0)));
    m.put(
        "actions",
        actions.stream()
            .map(
                a -> {
                  Map<String, Object> x = new LinkedHashMap<>();
                  x.put("action", a.action());
                  x.put("actor", a.actor());
                  x.put("reason", a.reason());
                  x.put("at", Json.time(a.actedAt()));
                  return x;
                })
            .toList());
    return m;
  }

  /** One parked key: its group, destination, key and the events waiting behind its head. */
  static Map<String, Object> parkedKey(ParkedKey k) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("consumer", k.consumerGroup());
    m.put("destination", k.destination());
    m.put("key", k.key());
    m.put("dead_letter_id", k.deadLetterId());
    m.put("behind", k.eventsBehind());
    m.put("parked_at", Json.time(k.parkedAt()));
    return m;
  }
}
