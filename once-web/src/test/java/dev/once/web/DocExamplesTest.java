package dev.once.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.Once;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.DocSnippets;
import dev.once.test.DocSnippets.Snippet;
import dev.once.test.DocSnippets.Unit;
import dev.once.test.TestDatabase;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;

/**
 * docs/HTTP.md's servlet example as written: its setup and its servlet, compiled from the doc, on a
 * Tomcat of their own with no login; a keyed POST answers 201 and its retry the stored response.
 */
class DocExamplesTest {
  static final String IMPORTS =
      """
      package docs;
      import dev.once.*;
      import dev.once.web.*;
      import jakarta.servlet.*;
      import jakarta.servlet.http.*;
      import java.io.IOException;
      import java.time.Duration;
      import java.util.UUID;
      """;

  @Test
  void theServletExampleAnswers201AndItsRetryGetsTheStoredResponse() throws Exception {
    Snippet setup = DocSnippets.named("docs/HTTP.md", "servlet-setup");
    Snippet servlet = DocSnippets.named("docs/HTTP.md", "servlet");
    String setupClass =
        IMPORTS
            + "public class Setup {\n"
            + "  public static void run(Once once, ServletContext servletContext) {\n"
            + setup.code()
            + "\n  }\n}\n";
    Path classes = Files.createTempDirectory("http-docs");
    assertThat(
            DocSnippets.compile(
                List.of(
                    new Unit("docs.Setup", setupClass, setup),
                    new Unit("docs." + servlet.declaredClass(), IMPORTS + servlet.code(), servlet)),
                classes,
                System.getProperty("java.class.path")))
        .isEmpty();
    try (TestDatabase db = TestDatabase.embedded();
        URLClassLoader loader =
            new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader());
        TableQueueTransport transport = TableQueueTransport.create(db.dataSource());
        Once once =
            Once.builder()
                .dataSource(db.dataSource())
                .transport(transport)
                .destinations("orders")
                .build()) {
      db.execute("CREATE TABLE orders (order_id text PRIMARY KEY)");
      Method run =
          loader.loadClass("docs.Setup").getMethod("run", Once.class, ServletContext.class);
      Tomcat tomcat = new Tomcat();
      tomcat.setBaseDir(Files.createTempDirectory("http-docs-tomcat").toString());
      tomcat.setPort(0);
      Context context = tomcat.addContext("", null);
      context.addServletContainerInitializer(
          (types, servletContext) -> {
            try {
              run.invoke(null, once, servletContext);
            } catch (ReflectiveOperationException e) {
              throw new ServletException(e);
            }
          },
          null);
      tomcat.getConnector();
      tomcat.start();
      try {
        URI orders =
            URI.create("http://127.0.0.1:" + tomcat.getConnector().getLocalPort() + "/orders");
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post(orders, key);
        HttpResponse<String> retry = post(orders, key);

        assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
        assertThat(first.body()).contains("orderId");
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue(IdempotencyFilter.REPLAYED)).hasValue("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(db.count("SELECT count(*) FROM orders")).isOne();
        assertThat(db.count("SELECT count(*) FROM once_outbox")).isOne();
      } finally {
        tomcat.stop();
        tomcat.destroy();
      }
    }
  }

  private static HttpResponse<String> post(URI uri, String key) throws Exception {
    return WebFixture.http.send(
        HttpRequest.newBuilder(uri)
            .header("Idempotency-Key", key)
            .POST(HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
