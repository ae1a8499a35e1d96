package dev.once.dashboard;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.once.DeadLetter;
import dev.once.DeadLetterFilter;
import dev.once.DeadLetters;
import dev.once.OnceException;
import dev.once.OperationStatus;
import dev.once.StoreException;
import dev.once.jdbc.Dialect;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The HTTP handler: the page, its assets and the JSON API under {@code api/}. */
final class Api implements HttpHandler {
  private static final Logger log = LoggerFactory.getLogger(Api.class);
  private static final Set<String> FILTERS =
      Set.of("consumer", "type", "fingerprint", "event", "status");
  private static final Duration RATE_WINDOW = Duration.ofSeconds(30);

  private final String base;
  private final DataSource dataSource;
  private final Dialect dialect;
  private final DeadLetters deadLetters;
  private final Sampler sampler;
  private final Guard guard;
  private final Actions actions;
  private final Clock clock;
  private final Duration history;
  private final java.util.function.Function<String, Dashboard.BrokerCount> brokerDeadLetters;

  Api(
      String base,
      DataSource dataSource,
      Dialect dialect,
      DeadLetters deadLetters,
      Sampler sampler,
      Guard guard,
      Actions actions,
      Clock clock,
      Duration history,
      java.util.function.Function<String, Dashboard.BrokerCount> brokerDeadLetters) {
    this.brokerDeadLetters = brokerDeadLetters;
    this.base = base;
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.deadLetters = deadLetters;
    this.sampler = sampler;
    this.guard = guard;
    this.actions = actions;
    this.clock = clock;
    this.history = history;
  }

  @Override
  public void handle(HttpExchange ex) throws IOException {
    try {
      guard.checkHost(ex);
      String path = ex.getRequestURI().getPath();
      if (!path.startsWith(base)) {
        throw new BadRequest(404, "no such page: " + Params.shorten(path));
      }
      route(ex, path.substring(base.length()));
    } catch (BadRequest e) {
      Http.error(ex, e.status, e.getMessage());
    } catch (OnceException e) {
      // e.g. the broker refused a replay: Once's messages name ids, never a payload value
      log.warn(
          "dashboard request {} {} failed: {}", ex.getRequestMethod(), safePath(ex), e.toString());
      Http.error(
          ex,
          e instanceof StoreException ? 503 : 502,
          e.getMessage() + " (dead letters resolved before this one stay resolved: look again)");
    } catch (RuntimeException e) {
      log.warn("dashboard request {} {} failed", ex.getRequestMethod(), safePath(ex), e);
      Http.error(ex, 500, "the dashboard failed: " + e.getClass().getSimpleName());
    }
  }

  private static String safePath(HttpExchange ex) {
    return ex.getRequestURI().getPath(); // paths carry ids only, never a payload value
  }

  private void route(HttpExchange ex, String path) throws IOException {
    String method = ex.getRequestMethod();
    if (method.equals("POST")) {
      actions.handle(ex, path);
      return;
    }
    if (!method.equals("GET") && !method.equals("HEAD")) {
      throw new BadRequest(405, "method " + method + " not allowed here");
    }
    if (!path.startsWith("api/")) {
      Assets.serve(ex, path);
      return;
    }
    switch (path) {
      case "api/config" -> Http.json(ex, 200, config(ex));
      case "api/overview" -> Http.json(ex, 200, overview(ex));
      case "api/series" -> Http.json(ex, 200, series(ex));
      case "api/dead-letters" -> Http.json(ex, 200, page(ex));
      case "api/dead-letters/count" -> Http.json(ex, 200, count(ex));
      case "api/dead-letters/groups" -> Http.json(ex, 200, groups(ex));
      case "api/operations" -> Http.json(ex, 200, operations(ex));
      default -> {
        if (path.startsWith("api/dead-letters/")) {
          Http.json(ex, 200, detail(path.substring("api/dead-letters/".length())));
        } else {
          throw new BadRequest(404, "no such endpoint: " + Params.shorten(path));
        }
      }
    }
  }

  private Map<String, Object> config(HttpExchange ex) {
    new Params(ex.getRequestURI(), Set.of());
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("read_only", guard.readOnly());
    m.put("history_seconds", history.toSeconds());
    m.put("rate_source", sampler.exact() ? "listener" : "database");
    return m;
  }

  private Map<String, Object> overview(HttpExchange ex) {
    new Params(ex.getRequestURI(), Set.of());
    Sampler.Sample latest = sampler.latest();
    if (latest == null) {
      latest = sampler.sample();
    }
    List<Sampler.Sample> recent = sampler.since(latest.at().minus(RATE_WINDOW));
    List<Map<String, Object>> consumers = new ArrayList<>();
    latest
        .consumers()
        .forEach(
            (name, p) -> {
              Map<String, Object> c = Views.point(name, p, rates(recent, name));
              Dashboard.BrokerCount broker = brokerDeadLetters.apply(name);
              c.put("broker_dead_letters", broker == null ? null : broker.count());
              c.put(
                  "broker_dead_letters_age_seconds",
                  broker == null ? null : broker.age().toMillis() / 1000.0);
              consumers.add(c);
            });
    OperationStatus ops = OperationStatus.read(dataSource, dialect, clock.instant(), 0);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("at", Json.time(latest.at()));
    m.put("rate_source", sampler.exact() ? "listener" : "database");
    m.put("consumers", consumers);
    m.put("outbox", latest.status().outbox().stream().map(Views::outbox).toList());
    m.put("parked_keys", latest.status().parkedKeys().stream().map(Views::parkedKeys).toList());
    m.put("operations", ops.states().stream().map(Views::state).toList());
    m.put(
        "dead_letters_open",
        latest.status().deadLetters().stream().mapToLong(b -> b.waiting()).sum());
    return m;
  }

  /**
   * Rates averaged over the samples, weighted by the seconds each covers; the duplicate rate over
   * the samples that know it (null when none does).
   */
  static Views.Rates rates(List<Sampler.Sample> samples, String name) {
    double secs = 0;
    double dupSecs = 0;
    double arrival = 0;
    double completion = 0;
    double retry = 0;
    double dup = 0;
    double dead = 0;
    for (Sampler.Sample s : samples) {
      Sampler.Point p = s.consumers().get(name);
      if (p == null) {
        continue;
      }
      secs += s.seconds();
      arrival += p.arrival() * s.seconds();
      completion += p.completion() * s.seconds();
      retry += p.retry() * s.seconds();
      dead += p.dead() * s.seconds();
      if (p.duplicate() != null) {
        dupSecs += s.seconds();
        dup += p.duplicate() * s.seconds();
      }
    }
    Double duplicate = dupSecs == 0 ? null : dup / dupSecs;
    if (secs == 0) {
      return new Views.Rates(0, 0, 0, duplicate, 0);
    }
    return new Views.Rates(arrival / secs, completion / secs, retry / secs, duplicate, dead / secs);
  }

  private Map<String, Object> series(HttpExchange ex) {
    Params p = new Params(ex.getRequestURI(), Set.of("minutes"));
    int max = (int) Math.max(1, history.toMinutes());
    int minutes = p.integer("minutes", Math.min(5, max), 1, max);
    List<Sampler.Sample> samples =
        sampler.since(clock.instant().minus(Duration.ofMinutes(minutes)));
    List<Double> at = new ArrayList<>();
    Map<String, Map<String, List<Double>>> byConsumer = new LinkedHashMap<>();
    for (int i = 0; i < samples.size(); i++) {
      Sampler.Sample s = samples.get(i);
      at.add(s.at().toEpochMilli() / 1000.0);
      for (var e : s.consumers().entrySet()) {
        Map<String, List<Double>> c =
            byConsumer.computeIfAbsent(e.getKey(), k -> new LinkedHashMap<>());
        add(c, "arrival", i, e.getValue().arrival());
        add(c, "completion", i, e.getValue().completion());
        add(c, "oldest_seconds", i, e.getValue().oldestSeconds());
        add(c, "waiting", i, (double) e.getValue().waiting());
      }
    }
    byConsumer.values().forEach(c -> c.values().forEach(l -> pad(l, samples.size())));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("at", at);
    m.put("consumers", byConsumer);
    return m;
  }

  private static void add(Map<String, List<Double>> c, String what, int i, double v) {
    List<Double> l = c.computeIfAbsent(what, k -> new ArrayList<>());
    pad(l, i);
    l.add(v);
  }

  private static void pad(List<Double> l, int size) {
    while (l.size() < size) {
      l.add(null);
    }
  }

  private DeadLetterFilter filter(Params p, int limit) {
    return new DeadLetterFilter(
        p.text("consumer"),
        p.text("event"),
        p.text("type"),
        p.text("fingerprint"),
        null,
        null,
        p.status(),
        limit);
  }

  private Map<String, Object> page(HttpExchange ex) {
    Set<String> allowed = new java.util.HashSet<>(FILTERS);
    allowed.add("before");
    allowed.add("limit");
    Params p = new Params(ex.getRequestURI(), allowed);
    int limit = p.integer("limit", 50, 1, 500);
    long before = p.positiveLong("before", Long.MAX_VALUE);
    List<DeadLetter> rows = deadLetters.page(filter(p, limit), before);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("items", rows.stream().map(Views::row).toList());
    m.put("next_before", rows.size() == limit ? rows.get(rows.size() - 1).id() : null);
    return m;
  }

  private Map<String, Object> count(HttpExchange ex) {
    Params p = new Params(ex.getRequestURI(), FILTERS);
    return Map.of("count", deadLetters.count(filter(p, 1)));
  }

  private Map<String, Object> groups(HttpExchange ex) {
    Params p = new Params(ex.getRequestURI(), Set.of("status", "limit"));
    int limit = p.integer("limit", 100, 1, 1000);
    return Map.of(
        "groups", deadLetters.groups(p.status(), limit).stream().map(Views::group).toList());
  }

  private Map<String, Object> detail(String idText) {
    long id = Params.number("id", idText);
    DeadLetter d =
        deadLetters.get(id).orElseThrow(() -> new BadRequest(404, "no dead letter with id " + id));
    return Views.detail(d, deadLetters.actions(d), deadLetters.parkedKeysHeadedBy(List.of(id)));
  }

  private Map<String, Object> operations(HttpExchange ex) {
    Params p = new Params(ex.getRequestURI(), Set.of("limit"));
    int limit = p.integer("limit", 100, 1, 1000);
    Instant now = clock.instant();
    OperationStatus s = OperationStatus.read(dataSource, dialect, now, limit);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("states", s.states().stream().map(Views::state).toList());
    m.put("uncertain", s.uncertain().stream().map(Views::uncertain).toList());
    return m;
  }
}
