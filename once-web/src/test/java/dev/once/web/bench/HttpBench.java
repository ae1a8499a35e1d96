package dev.once.web.bench;

import dev.once.Once;
import dev.once.RequestKeys;
import dev.once.Tx;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import dev.once.web.ClientScope;
import dev.once.web.IdempotencyFilter;
import dev.once.web.IdempotencySettings;
import dev.once.web.OnceRequests;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * The cost of the filter on a trivial endpoint (one INSERT in a transaction), same run, same
 * server: without the filter (the endpoint runs its own Once transaction), with it and a new key
 * per request, and with it replaying one stored key. Prints requests/s and p50/p99 per phase. Run
 * by bench/http-idempotency.sh; arguments: clients seconds rounds.
 */
public final class HttpBench {
  public static void main(String[] args) throws Exception {
    int clients = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("CREATE TABLE hits (id VARCHAR(64) PRIMARY KEY)");
      Once once =
          Once.builder()
              .dataSource(db.dataSource())
              .transport(TableQueueTransport.create(db.dataSource()))
              .build();
      RequestKeys keys = once.requestKeys().build();
      IdempotencyFilter filter =
          IdempotencyFilter.forPostAndPatch(
              keys, IdempotencySettings.builder().scope(ClientScope.header("X-Client")).build());
      Tomcat tomcat = new Tomcat();
      tomcat.setBaseDir(Files.createTempDirectory("once-http-bench").toString());
      tomcat.setPort(0);
      Context ctx = tomcat.addContext("", null);
      Tomcat.addServlet(ctx, "hit", new Hit(once));
      ctx.addServletMappingDecoded("/*", "hit");
      FilterDef def = new FilterDef();
      def.setFilterName("once");
      def.setFilter(filter);
      ctx.addFilterDef(def);
      FilterMap map = new FilterMap();
      map.setFilterName("once");
      map.addURLPattern("/keyed/*");
      ctx.addFilterMap(map);
      tomcat.getConnector();
      tomcat.start();
      String base = "http://127.0.0.1:" + tomcat.getConnector().getLocalPort();
      HttpClient http = HttpClient.newHttpClient();
      String replayKey = UUID.randomUUID().toString();
      send(http, base + "/keyed/hit", replayKey);
      System.out.printf(
          "clients=%d seconds=%d rounds=%d (phases interleaved per round)%n",
          clients, seconds, rounds);
      for (int r = 1; r <= rounds; r++) {
        phase("round " + r + " without filter", http, base + "/plain/hit", null, clients, seconds);
        phase("round " + r + " filter, new keys", http, base + "/keyed/hit", "", clients, seconds);
        phase(
            "round " + r + " filter, replays",
            http,
            base + "/keyed/hit",
            replayKey,
            clients,
            seconds);
      }
      tomcat.stop();
      once.close();
    }
  }

  /** key null: no header; "": a new key per request; else that key. */
  static void phase(String name, HttpClient http, String url, String key, int clients, int seconds)
      throws Exception {
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    List<Future<List<Long>>> all = new ArrayList<>();
    AtomicLong errors = new AtomicLong();
    for (int i = 0; i < clients; i++) {
      all.add(
          pool.submit(
              () -> {
                List<Long> lat = new ArrayList<>();
                while (System.nanoTime() < end) {
                  long t0 = System.nanoTime();
                  int status =
                      send(
                          http,
                          url,
                          key == null ? null : key.isEmpty() ? UUID.randomUUID().toString() : key);
                  lat.add(System.nanoTime() - t0);
                  if (status != 201) {
                    errors.incrementAndGet();
                  }
                }
                return lat;
              }));
    }
    List<Long> lat = new ArrayList<>();
    for (Future<List<Long>> f : all) {
      lat.addAll(f.get());
    }
    pool.shutdown();
    Collections.sort(lat);
    System.out.printf(
        "%-34s %8.0f req/s  p50 %6.2f ms  p99 %6.2f ms  (%d requests, %d not 201)%n",
        name,
        lat.size() / (double) seconds,
        lat.get(lat.size() / 2) / 1e6,
        lat.get((int) (lat.size() * 0.99)) / 1e6,
        lat.size(),
        errors.get());
  }

  static int send(HttpClient http, String url, String key) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url))
            .header("Content-Type", "application/json")
            .header("X-Client", "bench")
            .POST(HttpRequest.BodyPublishers.ofString("{\"sku\":\"lamp\"}"));
    if (key != null) {
      b.header("Idempotency-Key", key);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  /** One INSERT: on the keyed request's transaction, or in a Once transaction of its own. */
  static final class Hit extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final transient Once once;

    Hit(Once once) {
      this.once = once;
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse res) throws IOException {
      req.getInputStream().readAllBytes();
      String id = UUID.randomUUID().toString();
      if (req.getAttribute(OnceRequests.TX) instanceof Tx tx) {
        tx.update("INSERT INTO hits (id) VALUES (?)", id);
      } else {
        once.useTransaction(tx -> tx.update("INSERT INTO hits (id) VALUES (?)", id));
      }
      res.setStatus(201);
      res.setContentType("application/json");
      res.getOutputStream().write(("{\"id\":\"" + id + "\"}").getBytes());
    }
  }
}
