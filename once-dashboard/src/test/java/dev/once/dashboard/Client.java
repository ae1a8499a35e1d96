package dev.once.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** {@link HttpClient} calls against a dashboard, answers parsed as JSON. */
final class Client {
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;

  Client(String base) {
    this.base = base;
  }

  record Answer(int status, JsonNode json) {
    String error() {
      return json.path("error").asText();
    }
  }

  Answer get(String path) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
  }

  Answer post(String path, String body, String token, String origin) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header(Guard.TOKEN_HEADER, token);
    }
    if (origin != null) {
      b.header("Origin", origin);
    }
    return send(b);
  }

  Answer post(String path, String body) {
    return post(path, body, Rig.TOKEN, null);
  }

  private Answer send(HttpRequest.Builder b) {
    try {
      HttpResponse<String> r =
          http.send(
              b.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
      return new Answer(r.statusCode(), Json.MAPPER.readTree(r.body()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
