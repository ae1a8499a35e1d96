package dev.once.web;

import dev.once.Once;
import dev.once.OnceListener;
import dev.once.RequestKey;
import dev.once.RequestKeys;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A database with an {@code orders} table, Once on it, and the shared HTTP server serving it. */
abstract class WebFixture {
  static final String SCOPE_HEADER = "X-Client";
  static final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  abstract TestDatabase database();

  TestDatabase db;
  final List<Once> onces = new ArrayList<>();

  @BeforeEach
  void start() {
    db = database();
    db.execute("CREATE TABLE orders (id VARCHAR(100) PRIMARY KEY, request TEXT NOT NULL)");
  }

  @AfterEach
  void stop() {
    onces.forEach(Once::close);
    db.close();
  }

  Once once(OnceListener listener) {
    Once once =
        Once.builder()
            .dataSource(db.dataSource())
            .transport(TableQueueTransport.create(db.dataSource()))
            .destinations("orders")
            .listener(listener)
            .build();
    onces.add(once);
    return once;
  }

  /**
   * Serves {@code /orders} with request keys made by {@code keys} from a Once with the listener.
   */
  WebServer serve(OnceListener listener, Function<Once, RequestKeys> keys) {
    return serve(
        listener,
        keys,
        IdempotencySettings.builder().scope(ClientScope.header(SCOPE_HEADER)).build());
  }

  WebServer serve(
      OnceListener listener, Function<Once, RequestKeys> keys, IdempotencySettings settings) {
    RequestKeys k = keys.apply(once(listener));
    return WebServer.get()
        .serve(IdempotencyFilter.forPostAndPatch(k, settings), new OrdersServlet());
  }

  WebServer serve(OnceListener listener) {
    return serve(listener, o -> o.requestKeys().build());
  }

  static HttpResponse<byte[]> post(String key, String body, String... headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(WebServer.get().url("/orders")))
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", "application/json")
            .header(SCOPE_HEADER, "client-a")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      b.header("Idempotency-Key", key);
    }
    for (int i = 0; i < headers.length; i += 2) {
      b.setHeader(headers[i], headers[i + 1]);
    }
    try {
      return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (Exception e) {
      throw new IllegalStateException("POST /orders", e);
    }
  }

  long orders() {
    return db.count("SELECT count(*) FROM orders");
  }

  long outbox() {
    return db.count("SELECT count(*) FROM once_outbox");
  }

  static String newKey() {
    return UUID.randomUUID().toString();
  }

  static boolean replayed(HttpResponse<?> r) {
    return r.headers().firstValue(IdempotencyFilter.REPLAYED).orElse("").equals("true");
  }

  static String scoped(String key) {
    return RequestKey.of("client-a", key).toString();
  }
}
