package dev.once.example.warehouse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.test.DocSnippets;
import dev.once.test.DocSnippets.Snippet;
import dev.once.test.DocSnippets.Unit;
import dev.once.test.TestDatabase;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The first examples of docs/SPRING.md (a handler) and docs/HTTP.md (an {@code @Idempotent}
 * controller) as written: compiled from the docs, and run as the only handler and controller of an
 * application without login and without the example's application.properties — the one property the
 * docs name for that ({@code once.http.scope=shared}) and the destination SPRING.md declares. The
 * README's Spring block is compiled too.
 */
class DocExamplesTest {
  static final String IMPORTS =
      """
      import dev.once.*;
      import dev.once.spring.*;
      import dev.once.example.warehouse.*;
      import org.springframework.beans.factory.annotation.Autowired;
      import org.springframework.http.ResponseEntity;
      import org.springframework.stereotype.*;
      import org.springframework.transaction.annotation.Transactional;
      import org.springframework.web.bind.annotation.*;
      import java.util.concurrent.ThreadLocalRandom;
      """;

  private static final HttpClient http = HttpClient.newHttpClient();
  private static URLClassLoader docs;
  private static List<Class<?>> docClasses;

  /**
   * The application around the docs' classes: JPA and the example's OrderService, nothing else. A
   * plain configuration, not a {@code @SpringBootConfiguration}: the package's other
   * {@code @SpringBootTest}s look one up and must find only WarehouseApplication.
   */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @Import(OrderService.class)
  static class DocsApplication {}

  @BeforeAll
  static void compileTheDocs() throws Exception {
    Snippet handler = DocSnippets.named("docs/SPRING.md", "spring-handler");
    Snippet controller = DocSnippets.named("docs/HTTP.md", "spring-idempotent");
    Snippet readme = DocSnippets.named("README.md", "needs"); // README's Spring block
    Path classes = Files.createTempDirectory("spring-docs");
    List<Unit> units = new ArrayList<>();
    for (Snippet s : List.of(handler, controller)) {
      units.add(new Unit("docs." + s.declaredClass(), "package docs;\n" + IMPORTS + s.code(), s));
    }
    units.add(
        new Unit(
            "docs.readme." + readme.declaredClass(),
            "package docs.readme;\n" + IMPORTS + readme.code(),
            readme));
    assertThat(DocSnippets.compile(units, classes, System.getProperty("java.class.path")))
        .isEmpty();
    docs =
        new URLClassLoader(
            new URL[] {classes.toUri().toURL()}, DocExamplesTest.class.getClassLoader());
    docClasses =
        List.of(
            docs.loadClass("docs." + handler.declaredClass()),
            docs.loadClass("docs." + controller.declaredClass()));
  }

  /** The docs' application on a fresh schema, with {@code args} besides. */
  private static ConfigurableApplicationContext start(String... args) {
    String base = TestDatabase.embeddedUrl();
    String schema = "docs_" + ProcessHandle.current().pid() + "_" + System.nanoTime();
    try (Connection c = DriverManager.getConnection(base);
        Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA " + schema);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--spring.config.name=doc-examples"); // not the example's application.properties
    all.add("--spring.datasource.url=" + base + "&currentSchema=" + schema);
    all.add("--server.port=0");
    all.add("--once.destinations=dispatch"); // as SPRING.md says
    List<Class<?>> sources = new ArrayList<>(docClasses);
    sources.add(DocsApplication.class);
    return new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
        .resourceLoader(new DefaultResourceLoader(docs))
        .run(all.toArray(String[]::new));
  }

  private static HttpResponse<String> purchase(ConfigurableApplicationContext app, String key)
      throws Exception {
    int port = ((WebServerApplicationContext) app).getWebServer().getPort();
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/purchases"))
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", key)
            .POST(HttpRequest.BodyPublishers.ofString("{\"amountCents\":1999}"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void withoutLoginAndWithTheOneDocumentedPropertyAPurchaseIsPlacedOnceAndDispatchedOnce()
      throws Exception {
    try (ConfigurableApplicationContext app = start("--once.http.scope=shared")) {
      String key = UUID.randomUUID().toString();
      HttpResponse<String> first = purchase(app, key);
      HttpResponse<String> retry = purchase(app, key);

      assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
      assertThat(retry.statusCode()).isEqualTo(201);
      assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
      assertThat(retry.body()).isEqualTo(first.body());
      String orderId = first.headers().firstValue("Location").orElseThrow().substring(8);
      JdbcTemplate db = new JdbcTemplate(app.getBean(DataSource.class));
      assertThat(db.queryForObject("SELECT count(*) FROM orders", Long.class)).isOne();
      await() // SPRING.md's handler: one dispatch job, and its DispatchQueued in the outbox
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  db.queryForObject(
                      "SELECT count(*) FROM once_outbox WHERE destination = 'dispatch'",
                      Long.class),
              n -> n == 1);
      assertThat(
              db.queryForObject(
                  "SELECT count(*) FROM dispatch_jobs WHERE order_id = ?",
                  Long.class,
                  Long.parseLong(orderId)))
          .isOne();
    }
  }

  @Test
  void withoutLoginAndWithoutThePropertyTheAnswerNamesIt() throws Exception {
    try (ConfigurableApplicationContext app = start()) {
      HttpResponse<String> r = purchase(app, UUID.randomUUID().toString());
      assertThat(r.statusCode()).isEqualTo(400);
      assertThat(r.body())
          .contains("urn:once:problem:scope-missing")
          .contains("once.http.scope=shared");
      JdbcTemplate db = new JdbcTemplate(app.getBean(DataSource.class));
      assertThat(db.queryForObject("SELECT count(*) FROM orders", Long.class)).isZero();
    }
  }
}
