package dev.once.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.OnceListener;
import dev.once.test.TestDatabase;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Keys and bodies a hostile or careless client sends: each a clear 400/413 or an isolated miss. */
class HostileInputTest extends WebFixture {
  @Override
  TestDatabase database() {
    return TestDatabase.embedded();
  }

  @Test
  void aKeyOfMoreThan255CharactersIs400AndOneOf255Runs() {
    serve(new OnceListener() {});
    HttpResponse<byte[]> tooLong = post("k".repeat(256), "{}");
    assertThat(tooLong.statusCode()).isEqualTo(400);
    assertThat(new String(tooLong.body())).contains("256 characters long, more than 255");
    assertThat(orders()).isZero();

    assertThat(post("k".repeat(255), "{}").statusCode()).isEqualTo(201);
  }

  @Test
  void anEmptyKeyIs400() {
    serve(new OnceListener() {});
    assertThat(post("\"\"", "{}").statusCode()).isEqualTo(400);
    assertThat(raw("Idempotency-Key: \r\n").status()).isEqualTo(400);
    assertThat(orders()).isZero();
  }

  @Test
  void aQuotedKeyAndTheSameBareKeyAreOneKey() {
    serve(new OnceListener() {});
    assertThat(post("\"abc-1\"", "{}").statusCode()).isEqualTo(201);
    HttpResponse<byte[]> bare = post("abc-1", "{}");
    assertThat(replayed(bare)).isTrue();
    assertThat(orders()).isOne();
  }

  @Test
  void controlCharactersAndNonAsciiInTheKeyAre400() {
    serve(new OnceListener() {});
    Raw tab = raw("Idempotency-Key: \"a\tb\"\r\n");
    Raw del = raw("Idempotency-Key: a\u007fb\r\n");
    Raw utf8 = raw("Idempotency-Key: schlüssel\r\n");

    assertThat(tab.status()).isEqualTo(400);
    assertThat(tab.body()).contains("U+0009");
    assertThat(del.status()).isEqualTo(400);
    assertThat(utf8.status()).isEqualTo(400);
    assertThat(utf8.body()).contains("only printable ASCII");
    assertThat(orders()).isZero();
  }

  @Test
  void theKeySentTwiceOrAsAListIs400() throws Exception {
    serve(new OnceListener() {});
    HttpRequest twice =
        HttpRequest.newBuilder(URI.create(WebServer.get().url("/orders")))
            .header(SCOPE_HEADER, "client-a")
            .header("Idempotency-Key", "a")
            .header("Idempotency-Key", "b")
            .POST(HttpRequest.BodyPublishers.ofString("{}"))
            .build();
    HttpResponse<String> r = http.send(twice, HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("is sent 2 times");

    assertThat(post("a, b", "{}").statusCode()).isEqualTo(400);
    assertThat(post("\"a\", \"b\"", "{}").statusCode()).isEqualTo(400);
    assertThat(orders()).isZero();
  }

  @Test
  void aHugeBodyIs413AndNothingRuns() {
    serve(new OnceListener() {});
    HttpResponse<byte[]> r = post(newKey(), "x".repeat(1024 * 1024 + 1));
    assertThat(r.statusCode()).isEqualTo(413);
    assertThat(new String(r.body())).contains("over 1048576 bytes");
    assertThat(orders()).isZero();
    assertThat(db.count("SELECT count(*) FROM once_request")).isZero();
  }

  @Test
  void aResponseOverTheCapIsAServerErrorAndNothingIsStored() {
    serve(new OnceListener() {}, o -> o.requestKeys().maxResponseBytes(1000).build());
    HttpResponse<byte[]> r = post(newKey(), "{}", "X-Test-Body-Bytes", "1001");
    assertThat(r.statusCode()).isEqualTo(500);
    assertThat(orders()).isZero();
    assertThat(db.count("SELECT count(*) FROM once_request")).isZero();
  }

  @Test
  void anotherClientsKeyNeverReplaysItsResponse() {
    serve(new OnceListener() {});
    String key = newKey();
    HttpResponse<byte[]> a = post(key, "{}");
    HttpResponse<byte[]> b = post(key, "{}", SCOPE_HEADER, "client-b");

    assertThat(b.statusCode()).isEqualTo(201);
    assertThat(replayed(b)).isFalse();
    assertThat(b.body()).isNotEqualTo(a.body());
    assertThat(orders()).isEqualTo(2);
  }

  @Test
  void aKeyedRequestWithoutAClientScopeIs400() {
    serve(new OnceListener() {});
    HttpResponse<byte[]> r = post(newKey(), "{}", SCOPE_HEADER, "");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(new String(r.body()))
        .contains("urn:once:problem:scope-missing")
        .contains("this request has no X-Client header")
        .contains("ClientScope.header(\\\"X-Client\\\")");
    assertThat(orders()).isZero();
  }

  /**
   * The default scope is the authenticated principal: an application without login gets 400 on
   * every keyed request, and the answer names the settings that fit it.
   */
  @Test
  void aKeyedRequestWithoutLoginIs400NamingTheScopesThatWorkWithoutLogin() {
    serve(new OnceListener() {}, o -> o.requestKeys().build(), IdempotencySettings.DEFAULT);
    HttpResponse<byte[]> r = post(newKey(), "{}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(new String(r.body(), StandardCharsets.UTF_8))
        .contains("urn:once:problem:scope-missing")
        .contains("no authenticated principal")
        .contains("ClientScope.shared()")
        .contains("ClientScope.header(name)");
    assertThat(orders()).isZero();
  }

  @Test
  void withASharedScopeAKeyedRequestWithoutLoginRunsAndItsRetryIsReplayed() {
    serve(
        new OnceListener() {},
        o -> o.requestKeys().build(),
        IdempotencySettings.builder().scope(ClientScope.shared()).build());
    String key = newKey();
    HttpResponse<byte[]> first = post(key, "{}", SCOPE_HEADER, "");
    HttpResponse<byte[]> retry = post(key, "{}", SCOPE_HEADER, "");
    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(replayed(retry)).isTrue();
    assertThat(retry.body()).isEqualTo(first.body());
    assertThat(orders()).isOne();
  }

  record Raw(int status, String body) {}

  /** A POST written on a socket, for header bytes an HTTP client refuses to send. */
  static Raw raw(String keyHeaderLine) {
    try (Socket s = new Socket("127.0.0.1", URI.create(WebServer.get().url("/")).getPort())) {
      s.setSoTimeout((int) Duration.ofSeconds(30).toMillis());
      OutputStream out = s.getOutputStream();
      ByteArrayOutputStream req = new ByteArrayOutputStream();
      req.writeBytes(
          ("POST /orders HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                  + SCOPE_HEADER
                  + ": client-a\r\nContent-Length: 2\r\n")
              .getBytes(StandardCharsets.ISO_8859_1));
      req.writeBytes(keyHeaderLine.getBytes(StandardCharsets.UTF_8));
      req.writeBytes("\r\n{}".getBytes(StandardCharsets.ISO_8859_1));
      out.write(req.toByteArray());
      out.flush();
      InputStream in = s.getInputStream();
      String all = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      int status = Integer.parseInt(all.substring(9, 12));
      return new Raw(status, all.substring(all.indexOf("\r\n\r\n") + 4));
    } catch (Exception e) {
      throw new IllegalStateException("raw POST", e);
    }
  }
}
