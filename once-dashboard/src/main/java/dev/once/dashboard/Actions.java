package dev.once.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import dev.once.DeadLetter;
import dev.once.DeadLetterFilter;
import dev.once.DeadLetters;
import dev.once.ParkedKey;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state-changing requests, each behind {@link Guard#checkAction}: replay and discard (of ids or
 * of one group, with the CLI's semantics: open dead letters only, each recorded with actor and
 * reason; a replay keeps the event id and reaches the failed consumer's group again), replay and
 * discard of a whole parked key of an ordered consumer, and revealing a payload. Logged without any
 * payload value.
 */
final class Actions {
  private static final Logger log = LoggerFactory.getLogger(Actions.class);
  static final int MAX_IDS = 500;
  static final int MAX_GROUP = 100_000;
  private static final Set<String> FIELDS = Set.of("ids", "group", "reason", "expected");
  private static final Set<String> KEY_FIELDS = Set.of("consumer", "key", "reason", "expected");

  private final DeadLetters deadLetters;
  private final Guard guard;
  private final String actor;

  Actions(DeadLetters deadLetters, Guard guard, String actor) {
    this.deadLetters = deadLetters;
    this.guard = guard;
    this.actor = actor;
  }

  void handle(HttpExchange ex, String path) throws IOException {
    if (path.equals("api/parked-keys/replay") || path.equals("api/parked-keys/discard")) {
      guard.checkAction(ex);
      Http.json(ex, 200, wholeKey(path.substring("api/parked-keys/".length()), ex));
      return;
    }
    boolean replay = path.equals("api/dead-letters/replay");
    boolean discard = path.equals("api/dead-letters/discard");
    boolean reveal = path.startsWith("api/dead-letters/") && path.endsWith("/payload");
    if (!replay && !discard && !reveal) {
      throw new BadRequest(404, "no such action: POST " + Params.shorten(path));
    }
    guard.checkAction(ex);
    JsonNode body = Json.readObject(ex.getRequestBody());
    if (reveal) {
      String idText = path.substring("api/dead-letters/".length(), path.length() - 8);
      Http.json(ex, 200, reveal(Params.number("id", idText)));
    } else {
      Http.json(ex, 200, resolve(replay ? "replay" : "discard", body));
    }
  }

  private Map<String, Object> reveal(long id) {
    DeadLetter d =
        deadLetters.get(id).orElseThrow(() -> new BadRequest(404, "no dead letter with id " + id));
    log.info("payload of dead letter {} revealed through the dashboard by {}", id, actor);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", id);
    m.put("payload", PayloadView.revealed(d.event().payload()));
    return m;
  }

  private Map<String, Object> resolve(String action, JsonNode body) {
    for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        throw BadRequest.of(
            "unknown field '" + Params.shorten(name) + "'; the body takes " + FIELDS);
      }
    }
    String reason = text(body, "reason");
    boolean hasIds = body.has("ids");
    boolean hasGroup = body.has("group");
    if (hasIds == hasGroup) {
      throw BadRequest.of("give exactly one of 'ids' (a list of dead-letter ids) or 'group'");
    }
    List<DeadLetter> done =
        hasIds ? byIds(action, ids(body), reason) : byGroup(action, body, reason);
    log.info(
        "{} of {} dead letters through the dashboard by {} ({})",
        action,
        done.size(),
        actor,
        reason == null ? "no reason given" : "reason given");
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("action", action);
    m.put("done", done.size());
    m.put("ids", done.stream().map(DeadLetter::id).toList());
    return m;
  }

  /** Those of the ids still open; the others (gone, or resolved meanwhile) are left, as the CLI. */
  private List<DeadLetter> byIds(String action, List<Long> ids, String reason) {
    return act(
        action,
        new DeadLetterFilter(
            null, null, null, null, null, null, "dead", ids.size(), Set.copyOf(ids)),
        reason);
  }

  private List<DeadLetter> byGroup(String action, JsonNode body, String reason) {
    JsonNode g = body.get("group");
    if (!g.isObject()) {
      throw BadRequest.of("group must be an object with consumer, type and fingerprint");
    }
    String consumer = required(g, "group.consumer");
    String type = required(g, "group.type");
    String fingerprint = required(g, "group.fingerprint");
    JsonNode expected = body.get("expected");
    if (expected == null || !expected.canConvertToLong() || expected.asLong() < 1) {
      throw BadRequest.of(
          "expected must be the count the confirmation showed (a whole number >= 1), was "
              + expected);
    }
    DeadLetterFilter f =
        new DeadLetterFilter(consumer, null, type, fingerprint, null, null, "dead", MAX_GROUP);
    long now = deadLetters.count(f);
    if (now != expected.asLong()) {
      throw new BadRequest(
          409,
          "the group now holds "
              + now
              + " open dead letters, not "
              + expected.asLong()
              + " as confirmed: look again and confirm the new count");
    }
    return act(action, f, reason);
  }

  private List<DeadLetter> act(String action, DeadLetterFilter f, String reason) {
    return action.equals("replay")
        ? deadLetters.replay(f, actor, reason)
        : deadLetters.discard(f, actor, reason);
  }

  /**
   * Replays or discards a whole parked key of one consumer group, as {@code once dead-letters
   * replay|discard --key}: the body names {@code consumer} and {@code key}, and {@code expected},
   * the events behind the key the confirmation showed: a discard deletes them, so it acts only on
   * that count (409 when the key now holds another).
   */
  private Map<String, Object> wholeKey(String action, HttpExchange ex) throws IOException {
    JsonNode body = Json.readObject(ex.getRequestBody());
    for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!KEY_FIELDS.contains(name)) {
        throw BadRequest.of(
            "unknown field '" + Params.shorten(name) + "'; the body takes " + KEY_FIELDS);
      }
    }
    String consumer = required(body, "consumer");
    String key = required(body, "key");
    String reason = text(body, "reason");
    List<ParkedKey> parked = deadLetters.parkedKeys(consumer, key, 0, MAX_IDS);
    if (parked.isEmpty()) {
      throw new BadRequest(404, "consumer " + consumer + " has no parked key " + key);
    }
    long behind = parked.stream().mapToLong(ParkedKey::eventsBehind).sum();
    JsonNode expected = body.get("expected");
    if (expected == null || !expected.isIntegralNumber() || expected.asLong() < 0) {
      throw BadRequest.of(
          "expected must be the events behind the key the confirmation showed (a whole number"
              + " >= 0), was "
              + expected);
    }
    if (behind != expected.asLong()) {
      throw new BadRequest(
          409,
          "the key now has "
              + behind
              + " events behind it, not "
              + expected.asLong()
              + " as confirmed: look again and confirm the new count");
    }
    List<ParkedKey> done =
        action.equals("replay")
            ? deadLetters.replayKey(consumer, key, actor, reason)
            : deadLetters.discardKey(consumer, key, actor, reason);
    log.info(
        "{} of {} parked keys of consumer {} through the dashboard by {} ({})",
        action,
        done.size(),
        consumer,
        actor,
        reason == null ? "no reason given" : "reason given");
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("action", action);
    m.put("keys", done.stream().map(Views::parkedKey).toList());
    return m;
  }

  private static List<Long> ids(JsonNode body) {
    JsonNode ids = body.get("ids");
    if (!ids.isArray() || ids.isEmpty() || ids.size() > MAX_IDS) {
      throw BadRequest.of("ids must be a list of 1 to " + MAX_IDS + " dead-letter ids");
    }
    List<Long> out = new ArrayList<>();
    for (JsonNode id : ids) {
      if (!id.canConvertToLong() || !id.isIntegralNumber() || id.asLong() < 1) {
        throw BadRequest.of("ids must hold positive whole numbers, found " + id);
      }
      out.add(id.asLong());
    }
    return out;
  }

  private static String text(JsonNode node, String field) {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual() || v.asText().length() > 500) {
      throw BadRequest.of(field + " must be a text of at most 500 characters");
    }
    return v.asText().isBlank() ? null : v.asText();
  }

  private static String required(JsonNode g, String path) {
    String field = path.substring(path.indexOf('.') + 1); // "group.consumer" or "consumer"
    String v = text(g, field);
    if (v == null) {
      throw BadRequest.of(path + " is required");
    }
    return v;
  }
}
