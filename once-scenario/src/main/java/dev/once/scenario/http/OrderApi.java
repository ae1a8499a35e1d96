package dev.once.scenario.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.once.Event;
import dev.once.EventId;
import dev.once.InvalidRequestKeyException;
import dev.once.Once;
import dev.once.RequestFingerprint;
import dev.once.RequestKey;
import dev.once.RequestKeys;
import dev.once.RequestResult;
import dev.once.StoredResponse;
import dev.once.Tx;
import dev.once.scenario.KeyedOrders;
import dev.once.scenario.WarehouseTables;
import dev.once.scenario.net.NoDelayHttpServer;
import dev.once.testkit.SimulatedCrash;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's order API on loopback: {@code POST /orders} with an {@code Idempotency-Key} header and
 * a body {@code {"purchase": N}} commits, in one transaction, the key, a new order (its number
 * drawn from {@code demo_order_number}, so a rolled-back request leaves no gap), its OrderPaid
 * event and the 201 response; a retry with the key gets that response again with {@code
 * Idempotent-Replayed: true}. A share of the answers is lost after the commit: the connection is
 * closed without a response, as a proxy timing out or a process dying there would leave it. A crash
 * the demo injects in the request's transaction ends the same way.
 */
public final class OrderApi implements AutoCloseable {
  /** The scope of the demo client's keys. */
  public static final String SCOPE = KeyedOrders.SCOPE;

  public static final String REPLAYED = "Idempotent-Replayed";
  private static final int MAX_BODY = 4096;
  private static final Logger log = LoggerFactory.getLogger(OrderApi.class);
  private static final ObjectMapper json = new ObjectMapper();

  private final RequestKeys keys;
  private final LongPredicate poison;
  private final double lostResponseRate;
  private final SplittableRandom random;
  private final HttpServer server;
  private final ExecutorService executor;
  private final AtomicLong lost = new AtomicLong();

  private OrderApi(Once once, int threads, double lostResponseRate, long seed, LongPredicate poison)
      throws IOException {
    this.keys = once.requestKeys().retention(Duration.ofHours(24)).build();
    this.poison = poison;
    this.lostResponseRate = lostResponseRate;
    this.random = new SplittableRandom(seed ^ 0x6f7264657273L);
    this.executor = Executors.newFixedThreadPool(threads);
    this.server =
        NoDelayHttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.createContext("/orders", this::handle);
    server.setExecutor(executor);
  }

  /**
   * Listens on a free loopback port.
   *
   * @param lostResponseRate share of answers (first or replayed) dropped after the commit, 0 to 1
   */
  public static OrderApi start(
      Once once, int threads, double lostResponseRate, long seed, LongPredicate poison) {
    try {
      OrderApi api = new OrderApi(once, threads, lostResponseRate, seed, poison);
      api.server.start();
      return api;
    } catch (IOException e) {
      throw new UncheckedIOException("the order API could not listen", e);
    }
  }

  public URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/orders");
  }

  /** Answers the server dropped after the commit. */
  public long lostResponses() {
    return lost.get();
  }

  private void handle(HttpExchange ex) {
    try {
      if (!ex.getRequestMethod().equals("POST")) {
        send(ex, problem(405, "only POST creates an order"), false);
        return;
      }
      List<String> headers = ex.getRequestHeaders().getOrDefault("Idempotency-Key", List.of());
      if (headers.size() != 1) {
        send(ex, problem(400, "give one Idempotency-Key header, got " + headers.size()), false);
        return;
      }
      byte[] body = readCapped(ex.getRequestBody());
      if (body == null) {
        send(ex, problem(413, "the body is over " + MAX_BODY + " bytes"), false);
        return;
      }
      answer(ex, RequestKey.of(SCOPE, headers.get(0)), body);
    } catch (InvalidRequestKeyException | BadRequest e) {
      trySend(ex, problem(400, e.getMessage()));
    } catch (SimulatedCrash crash) {
      // the "process" died in the request's transaction or right after its commit: no answer
    } catch (IOException | RuntimeException e) {
      log.warn("POST /orders failed", e);
      trySend(ex, problem(500, "internal error"));
    } finally {
      ex.close(); // without a response sent: the connection is closed, the client sees a cut
    }
  }

  private void answer(HttpExchange ex, RequestKey key, byte[] body) throws IOException {
    long purchase = purchase(body);
    RequestFingerprint fingerprint = RequestFingerprint.of("POST", "/orders", Map.of(), body);
    RequestResult r = keys.run(key, fingerprint, tx -> placeOrder(tx, key, purchase));
    switch (r.status()) {
      case EXECUTED, REPLAYED -> {
        if (loseThisAnswer()) {
          lost.incrementAndGet();
          return; // closed without a response: the client sees a cut after the commit
        }
        send(ex, r.response(), r.status() == RequestResult.Status.REPLAYED);
      }
      case FINGERPRINT_MISMATCH -> send(ex, problem(422, "key reused for another request"), false);
      case IN_PROGRESS -> send(ex, problem(409, "a request with this key is in progress"), false);
    }
  }

  private StoredResponse placeOrder(Tx tx, RequestKey key, long purchase) throws SQLException {
    long orderId = nextOrderNumber(tx);
    tx.update(
        "INSERT INTO demo_orders (order_id, amount_cents, poison, request_key, purchase)"
            + " VALUES (?, ?, ?, ?, ?)",
        orderId,
        WarehouseTables.amountCents(orderId),
        poison.test(orderId),
        key.key(),
        purchase);
    tx.publish(
        Event.of(
            EventId.of("order-paid", orderId),
            WarehouseTables.ORDERS,
            Long.toString(orderId),
            "OrderPaid",
            "{\"orderId\":" + orderId + "}"));
    String answer = "{\"orderId\":" + orderId + ",\"purchase\":" + purchase + "}";
    return StoredResponse.of(
        201,
        Map.of(
            "Content-Type", List.of("application/json"), "Location", List.of("/orders/" + orderId)),
        answer.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The next order number: the counter row stays locked until this transaction ends, so numbers are
   * handed out in commit order and a rollback gives its number back (orders stay 1..n, which the
   * demo's checks and the providers' ledgers count on). It serialises the API's commits; only the
   * demo's HTTP front pays for it.
   */
  private static long nextOrderNumber(Tx tx) throws SQLException {
    tx.update("UPDATE demo_order_number SET last_id = last_id + 1 WHERE id = 1");
    try (PreparedStatement ps =
            tx.connection().prepareStatement("SELECT last_id FROM demo_order_number WHERE id = 1");
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        throw new IllegalStateException("demo_order_number has no row: reset the demo's tables");
      }
      return rs.getLong(1);
    }
  }

  private synchronized boolean loseThisAnswer() {
    return random.nextDouble() < lostResponseRate;
  }

  private static long purchase(byte[] body) {
    try {
      JsonNode purchase = json.readTree(body).get("purchase");
      if (purchase == null || !purchase.canConvertToLong() || purchase.asLong() < 1) {
        throw new BadRequest("body.purchase must be a number >= 1, was " + purchase);
      }
      return purchase.asLong();
    } catch (IOException e) {
      throw new BadRequest("the body is not JSON: " + e.getMessage());
    }
  }

  private static byte[] readCapped(InputStream in) throws IOException {
    byte[] bytes = in.readNBytes(MAX_BODY + 1);
    return bytes.length > MAX_BODY ? null : bytes;
  }

  private static StoredResponse problem(int status, String detail) {
    String body = json.createObjectNode().put("status", status).put("detail", detail).toString();
    return StoredResponse.of(
        status,
        Map.of("Content-Type", List.of("application/problem+json")),
        body.getBytes(StandardCharsets.UTF_8));
  }

  private static void send(HttpExchange ex, StoredResponse r, boolean replayed) throws IOException {
    r.headers().forEach((name, values) -> ex.getResponseHeaders().put(name, values));
    if (replayed) {
      ex.getResponseHeaders().set(REPLAYED, "true");
    }
    byte[] body = r.body();
    ex.sendResponseHeaders(r.status(), body.length == 0 ? -1 : body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  private static void trySend(HttpExchange ex, StoredResponse r) {
    try {
      send(ex, r, false);
    } catch (IOException | RuntimeException ignored) {
      // headers were sent already or the connection is gone: the client sees a cut
    }
  }

  /** A request the API refuses with 400. */
  private static final class BadRequest extends RuntimeException {
    BadRequest(String message) {
      super(message);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    keys.close();
  }
}
