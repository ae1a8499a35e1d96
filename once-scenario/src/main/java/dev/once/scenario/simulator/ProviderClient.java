package dev.once.scenario.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.once.LookupAnswer;
import dev.once.ProviderRejectedException;
import dev.once.RequestNotSentException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Calls the simulator (or anything speaking its API) over HTTP, and maps answers to what an
 * operation needs: 2xx → the response; another 4xx than 409 → {@link ProviderRejectedException}
 * (definitive); 409, 5xx, a timeout or a broken connection → an exception (outcome unknown); a
 * connection that could not be opened → {@link RequestNotSentException}.
 */
public final class ProviderClient {
  private static final ObjectMapper json = new ObjectMapper();
  private final URI base;
  private final Duration timeout;
  private final HttpClient http;

  public ProviderClient(URI base, Duration timeout) {
    this.base = base;
    this.timeout = timeout;
    this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
  }

  public String charge(String idempotencyKey, String request) throws Exception {
    return post("/v1/charges", idempotencyKey, request);
  }

  public String sendEmail(String idempotencyKey, String request) throws Exception {
    return post("/v1/emails", idempotencyKey, request);
  }

  public LookupAnswer findCharge(String idempotencyKey, String operationId) throws Exception {
    return lookup("/v1/charges?idempotency_key=" + encode(idempotencyKey));
  }

  public LookupAnswer findEmail(String idempotencyKey, String operationId) throws Exception {
    return lookup("/v1/emails?reference=" + encode(operationId));
  }

  /** The provider's own record of what it did. */
  public JsonNode ledger() throws Exception {
    return json.readTree(send(HttpRequest.newBuilder(base.resolve("/ledger")).GET()).body());
  }

  private String post(String path, String key, String body) throws Exception {
    HttpRequest.Builder req =
        HttpRequest.newBuilder(base.resolve(path))
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", key)
            .POST(HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> res = send(req);
    int status = res.statusCode();
    if (status / 100 == 2) {
      return res.body();
    }
    if (status / 100 == 4 && status != 409 && status != 429) {
      throw new ProviderRejectedException("POST " + path + " refused: HTTP " + status, res.body());
    }
    // the body goes into the operation's last_error (scrubbed of the request's values): 2 KiB do
    throw new IOException("POST " + path + ": HTTP " + status + " " + capped(res.body()));
  }

  private static String capped(String body) {
    return body.length() <= 2048
        ? body
        : body.substring(0, 2048) + "… (" + body.length() + " chars)";
  }

  private LookupAnswer lookup(String pathAndQuery) throws Exception {
    HttpResponse<String> res = send(HttpRequest.newBuilder(base.resolve(pathAndQuery)).GET());
    return switch (res.statusCode()) {
      case 200 -> LookupAnswer.found(res.body());
      case 404 -> LookupAnswer.notFound();
      case 501 -> LookupAnswer.cannotTell("the provider has no lookup (HTTP 501)");
      default -> throw new IOException("lookup " + pathAndQuery + ": HTTP " + res.statusCode());
    };
  }

  private HttpResponse<String> send(HttpRequest.Builder req) throws Exception {
    URI uri = req.timeout(timeout).build().uri();
    try {
      return http.send(req.build(), HttpResponse.BodyHandlers.ofString());
    } catch (ConnectException | HttpConnectTimeoutException e) {
      throw new RequestNotSentException(uri + " did not accept a connection: " + e, e);
    }
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
