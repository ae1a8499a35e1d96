package dev.once.scenario.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * {@code POST /v1/charges} or {@code /v1/emails}. With idempotency, Stripe's rules: the same key
 * gets the saved first answer, the same key with another body a 422, the same key while the first
 * request still runs a 409; a key older than the retention window is forgotten. Without, every
 * request acts.
 */
final class Endpoint {
  private static final ObjectMapper json = new ObjectMapper();
  private final String kind;
  private final boolean idempotent;
  private final SimulatorConfig config;
  private final Ledger ledger;

  Endpoint(String kind, boolean idempotent, SimulatorConfig config, Ledger ledger) {
    this.kind = kind;
    this.idempotent = idempotent;
    this.config = config;
    this.ledger = ledger;
  }

  void post(HttpExchange ex) throws IOException, InterruptedException {
    String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    String key = ex.getRequestHeaders().getFirst("Idempotency-Key");
    Fault fault = config.faults().next();
    if (fault == Fault.SERVER_ERROR) {
      Http.send(ex, 503, "{\"error\":\"service_unavailable\"}");
      return;
    }
    if (!idempotent || key == null) {
      if (fault == Fault.SLOW) {
        Thread.sleep(config.slow().toMillis());
      }
      deliver(ex, fault, act(key, body));
      return;
    }
    String fingerprint = sha256(body);
    var saved = ledger.saved(kind, key, config.clock().instant(), config.retention());
    if (saved.isPresent()) {
      if (!saved.get().fingerprint().equals(fingerprint)) {
        Http.send(ex, 422, "{\"error\":\"idempotency_key_reused_with_another_body\"}");
      } else {
        ex.getResponseHeaders().add("Idempotent-Replayed", "true");
        deliver(ex, fault, saved.get().response());
      }
      return;
    }
    if (!ledger.start(kind, key)) {
      Http.send(ex, 409, "{\"error\":\"idempotency_key_in_use\"}");
      return;
    }
    deliver(ex, fault, actOnce(key, body, fingerprint, fault));
  }

  private String actOnce(String key, String body, String fingerprint, Fault fault)
      throws IOException, InterruptedException {
    Ledger.Saved saved = null;
    try {
      if (fault == Fault.SLOW) {
        Thread.sleep(config.slow().toMillis()); // the key is in progress: same key → 409
      }
      String response = act(key, body);
      saved = new Ledger.Saved(fingerprint, response, config.clock().millis());
      return response;
    } finally {
      ledger.finish(kind, key, saved);
    }
  }

  private String act(String key, String body) throws IOException {
    JsonNode request = json.readTree(body);
    String reference = request.path("reference").asText(null);
    Ledger.Entry e = ledger.perform(kind, key, reference, request);
    return json.createObjectNode()
        .put("id", e.id())
        .put("status", "succeeded")
        .put("reference", reference)
        .toString();
  }

  private void deliver(HttpExchange ex, Fault fault, String response)
      throws IOException, InterruptedException {
    switch (fault) {
      case DROP_RESPONSE -> ex.close(); // acted; the connection ends without an answer
      case STALL -> {
        Thread.sleep(config.slow().toMillis());
        Http.send(ex, 200, response);
      }
      default -> Http.send(ex, 200, response);
    }
  }

  private static String sha256(String body) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(body.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
