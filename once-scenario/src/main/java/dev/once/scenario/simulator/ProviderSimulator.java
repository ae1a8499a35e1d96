package dev.once.scenario.simulator;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.once.scenario.net.NoDelayHttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A payment provider and a mail relay on loopback, over real HTTP. {@code POST /v1/charges} and
 * {@code POST /v1/emails} act (see {@link Endpoint}); {@code GET /v1/charges?idempotency_key=} or
 * {@code ?reference=} looks a charge up (404 if there is none); {@code GET /v1/emails?reference=}
 * likewise, or 501 when the relay has no lookup; {@code GET /ledger} returns what was done.
 */
public final class ProviderSimulator implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ProviderSimulator.class);
  private static final ObjectMapper json = new ObjectMapper();
  private final HttpServer server;
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final Ledger ledger;

  private ProviderSimulator(SimulatorConfig config) throws IOException {
    this.ledger = new Ledger(config.journal());
    InetSocketAddress address =
        new InetSocketAddress(InetAddress.getLoopbackAddress(), config.port());
    this.server = NoDelayHttpServer.create(address, 64);
    Endpoint charges = new Endpoint("charges", config.idempotentCharges(), config, ledger);
    Endpoint emails = new Endpoint("emails", config.idempotentEmails(), config, ledger);
    server.createContext("/v1/charges", ex -> handle(ex, charges, true));
    server.createContext("/v1/emails", ex -> handle(ex, emails, config.emailLookup()));
    server.createContext("/ledger", ex -> guard(ex, () -> Http.send(ex, 200, ledgerJson())));
    server.setExecutor(executor);
  }

  public static ProviderSimulator start(SimulatorConfig config) {
    try {
      ProviderSimulator s = new ProviderSimulator(config);
      s.server.start();
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException("the provider simulator could not listen", e);
    }
  }

  public URI baseUri() {
    return URI.create("http://127.0.0.1:" + port());
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** The ground truth: what this simulator actually did. */
  public Ledger ledger() {
    return ledger;
  }

  private interface Step {
    void run() throws Exception;
  }

  private void handle(HttpExchange ex, Endpoint endpoint, boolean lookup) {
    String kind = ex.getHttpContext().getPath().substring("/v1/".length());
    guard(
        ex,
        () -> {
          if (ex.getRequestMethod().equals("POST")) {
            endpoint.post(ex);
          } else if (!lookup) {
            Http.send(ex, 501, "{\"error\":\"lookup_not_supported\"}");
          } else {
            lookup(ex, kind);
          }
        });
  }

  private void lookup(HttpExchange ex, String kind) throws IOException {
    Map<String, String> q = Http.query(ex);
    if (!q.containsKey("idempotency_key") && !q.containsKey("reference")) {
      Http.send(ex, 400, "{\"error\":\"give idempotency_key or reference\"}");
      return;
    }
    var found = ledger.find(kind, q.get("idempotency_key"), q.get("reference"));
    if (found.isEmpty()) {
      Http.send(ex, 404, "{\"error\":\"not_found\"}");
      return;
    }
    Ledger.Entry e = found.get();
    ObjectNode body = json.createObjectNode().put("id", e.id()).put("status", "succeeded");
    Http.send(ex, 200, body.put("reference", e.reference()).toString());
  }

  private String ledgerJson() {
    ObjectNode root = json.createObjectNode();
    root.set("charges", json.valueToTree(ledger.entries("charges")));
    root.set("emails", json.valueToTree(ledger.entries("emails")));
    root.put("running", ledger.running());
    return root.toString();
  }

  private static void guard(HttpExchange ex, Step step) {
    try {
      step.run();
    } catch (Exception e) {
      log.warn("simulator request {} failed", ex.getRequestURI(), e);
      try {
        Http.send(ex, 500, "{\"error\":\"internal\"}");
      } catch (IOException | RuntimeException ignored) {
        // the answer could not be sent either; the client sees a broken connection
      }
    } finally {
      ex.close();
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
    ledger.close();
  }
}
