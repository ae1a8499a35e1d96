package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Once;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.DocSnippets;
import dev.once.test.DocSnippets.Snippet;
import dev.once.test.DocSnippets.Unit;
import dev.once.test.TestDatabase;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every ```java block of README.md and docs/*.md compiles against the current API, the README's
 * Quick start runs as a program of its own, and its "Use it" block runs. The exceptions need
 * Spring, which this module does not have: docs/SPRING.md and docs/HTTP.md ({@link #NOT_HERE},
 * compiled and run by the Spring example's DocExamplesTest) and blocks marked {@code <!-- snippet:
 * needs Spring}. A block that declares a class is compiled as it stands; any other block is the
 * body of a method of a class that declares the names the docs take as given ({@link #CONTEXT}:
 * your DataSource {@code ds}, a {@code transport}, …). {@code Once once = } becomes an assignment
 * to the context's field, so that the test can close what the README started. Extraction and
 * compilation: {@link DocSnippets}.
 */
class DocSnippetsTest {
  /** Docs whose blocks need a classpath this module does not have. */
  static final List<String> NOT_HERE = List.of("SPRING.md", "HTTP.md");

  /** The name of blocks marked {@code <!-- snippet: needs Spring ...}. */
  static final String NEEDS_SPRING = "needs";

  static final String IMPORTS =
      """
      import dev.once.*;
      import dev.once.spi.*;
      import dev.once.jdbc.*;
      import dev.once.tablequeue.*;
      import dev.once.rabbitmq.*;
      import dev.once.kafka.*;
      import dev.once.sqs.*;
      import dev.once.micrometer.*;
      import dev.once.testkit.*;
      import dev.once.dashboard.*;
      import java.time.*;
      import java.util.*;
      import javax.sql.DataSource;
      import java.net.URI;
      import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
      import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
      import software.amazon.awssdk.services.sqs.SqsAsyncClient;
      import io.micrometer.core.instrument.MeterRegistry;
      import dev.once.scenario.simulator.ProviderClient;
      """;

  static final String CONTEXT =
      """
        public DataSource ds, dataSource;
        public Transport transport;
        public Once once;
        public MeterRegistry registry;
        public Handler handler;
        public ProviderClient client;
        public Operations payments;
        public long orderId;
        public String requestJson;
        public SqsAsyncClient sqsAsyncClient;
      """;

  static final String CLASSPATH = System.getProperty("java.class.path");

  /** A block as a unit to compile: as it stands, or as the body of a method of a context class. */
  static Unit unit(Snippet s) {
    if (s.isCompilationUnit()) {
      return new Unit(s.declaredClass(), s.code(), s);
    }
    String body = s.code().replaceAll("(?m)^Once once = ", "once = ");
    String source =
        IMPORTS
            + "public class "
            + s.className()
            + " {\n"
            + CONTEXT
            + "  public void run() throws Exception {\n"
            + body
            + "\n  }\n}\n";
    return new Unit(s.className(), source, s);
  }

  @Test
  void everyJavaBlockOfTheDocsCompiles() throws IOException {
    List<Snippet> snippets = snippets();
    assertThat(snippets).as("java blocks found in README.md and docs/").hasSizeGreaterThan(8);
    List<String> errors =
        DocSnippets.compile(
            snippets.stream().map(DocSnippetsTest::unit).toList(),
            Files.createTempDirectory("s"),
            CLASSPATH);
    assertThat(errors).as("compile errors in doc snippets").isEmpty();
  }

  /**
   * The Quick start as a user runs it: its source alone, compiled into a directory of its own, run
   * in a new JVM with the URL in {@code JDBC_URL} (as the README says) on a schema with none of
   * Once's tables; the shipment appears, and the program ends when asked (Ctrl-C: SIGTERM here).
   */
  @Test
  void theReadmeQuickStartRunsAsAProgramAndShipsTheOrderOnce() throws Exception {
    Snippet quickStart = DocSnippets.named("README.md", "quick-start");
    Path classes = Files.createTempDirectory("quick-start");
    assertThat(DocSnippets.compile(List.of(unit(quickStart)), classes, CLASSPATH)).isEmpty();
    Path log = classes.resolve("output.txt");
    try (TestDatabase db = TestDatabase.empty("embedded")) {
      Process program =
          DocSnippets.start(
              classes,
              CLASSPATH,
              quickStart.declaredClass(),
              Map.of("JDBC_URL", db.jdbcUrl()),
              log);
      try {
        await()
            .atMost(Duration.ofSeconds(60))
            .failFast("the Quick start ended by itself", () -> !program.isAlive())
            .until(() -> shipments(db) == 1);
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> Files.readString(log).contains("order-placed:A-17: PROCESSED"));
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(e.getMessage() + "; its output:\n" + Files.readString(log), e);
      } finally {
        program.destroy(); // SIGTERM, as Ctrl-C: the shutdown hook lets main() close everything
      }
      assertThat(program.waitFor(30, TimeUnit.SECONDS))
          .as("the Quick start ends after SIGTERM; its output:%n%s", Files.readString(log))
          .isTrue();
      assertThat(Files.readString(log)).doesNotContain("Exception").doesNotContain("WARN");
      assertThat(db.count("SELECT count(*) FROM orders")).isOne();
      assertThat(db.count("SELECT count(*) FROM shipments")).isOne();
      assertThat(db.count("SELECT count(*) FROM once_inbox WHERE consumer_id = 'shipping'"))
          .isOne();
    }
  }

  private static long shipments(TestDatabase db) {
    try {
      return db.count("SELECT count(*) FROM shipments WHERE order_id = 'A-17'");
    } catch (RuntimeException notYet) { // the program has not created its tables yet
      return 0;
    }
  }

  /**
   * The Quick start's dependencies are the ones this build uses: the BOM at the project's version,
   * the driver, pool, SLF4J binding and plugins at the parent POM's versions.
   */
  @Test
  void theReadmeQuickStartNamesTheVersionsOfThisBuild() throws IOException {
    String pom = DocSnippets.named("README.md", "quick-start-pom").code();
    String parent = Files.readString(DocSnippets.root().resolve("pom.xml"));
    assertThat(version(pom, "once-bom")).isEqualTo(tag(parent, "version"));
    assertThat(version(pom, "postgresql")).isEqualTo(tag(parent, "postgresql.version"));
    assertThat(version(pom, "HikariCP")).isEqualTo(tag(parent, "hikari.version"));
    assertThat(version(pom, "slf4j-simple")).isEqualTo(tag(parent, "slf4j.version"));
    for (String plugin : List.of("maven-compiler-plugin", "exec-maven-plugin")) {
      assertThat(version(pom, plugin)).as(plugin).isEqualTo(version(parent, plugin));
    }
  }

  private static String version(String xml, String artifactId) {
    Matcher m =
        Pattern.compile("<artifactId>" + artifactId + "</artifactId>\\s*<version>([^<]+)<")
            .matcher(xml);
    assertThat(m.find()).as("the Quick start's POM names %s with a version", artifactId).isTrue();
    return m.group(1);
  }

  private static String tag(String xml, String name) {
    Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<$]+)</").matcher(xml);
    assertThat(m.find()).as("pom.xml has <%s>", name).isTrue();
    return m.group(1);
  }

  @Test
  void theReadmeUseItBlockRunsAndPrintsALabelOnce() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("CREATE TABLE parcels (parcel_id bigint, grams int)");
      db.execute("CREATE TABLE labels (parcel_id bigint, event_id text)");
      try (TableQueueTransport courierSide = TableQueueTransport.create(db.dataSource());
          Once courier =
              Once.builder().dataSource(db.dataSource()).transport(courierSide).build()) {
        // another service consumes "labels": its group is bound, so the relay can publish there
        courier.consumer("courier").subscribe("labels", (tx, e) -> {}).build();
      }
      runReadmeSnippet(
          "use-it",
          db,
          once -> {
            await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> db.count("SELECT count(*) FROM labels WHERE parcel_id = 77") == 1);
            await()
                .atMost(Duration.ofSeconds(30))
                .until(
                    () ->
                        db.count(
                                "SELECT count(*) FROM once_outbox WHERE destination = 'labels'"
                                    + " AND sent_at IS NOT NULL")
                            == 1);
            assertThat(db.count("SELECT count(*) FROM parcels")).isOne();
            assertThat(db.count("SELECT count(*) FROM labels")).isOne();
            assertThat(
                    db.count("SELECT count(*) FROM once_inbox WHERE consumer_id = 'label-printer'"))
                .isOne();
          });
    }
  }

  /** What a test checks while the {@code Once} a README block built still runs. */
  private interface WhileRunning {
    void check(Once once) throws Exception;
  }

  /**
   * Compiles the README block named {@code name}, runs it against {@code db}, runs {@code check}
   * and closes the {@code Once} the block built.
   */
  private void runReadmeSnippet(String name, TestDatabase db, WhileRunning check) throws Exception {
    Snippet block = DocSnippets.named("README.md", name);
    Path out = Files.createTempDirectory("readme");
    assertThat(DocSnippets.compile(List.of(unit(block)), out, CLASSPATH)).isEmpty();
    try (URLClassLoader loader =
        new URLClassLoader(new java.net.URL[] {out.toUri().toURL()}, getClass().getClassLoader())) {
      Object snippet = loader.loadClass(block.className()).getConstructor().newInstance();
      field(snippet, "ds").set(snippet, db.dataSource());
      snippet.getClass().getMethod("run").invoke(snippet);
      try (Once once = (Once) field(snippet, "once").get(snippet)) {
        check.check(once);
      }
    }
  }

  private static Field field(Object o, String name) throws NoSuchFieldException {
    return o.getClass().getField(name);
  }

  static List<Snippet> snippets() throws IOException {
    List<String> files = new ArrayList<>();
    files.add("README.md");
    try (Stream<Path> docs = Files.list(DocSnippets.root().resolve("docs"))) {
      docs.map(p -> p.getFileName().toString())
          .filter(f -> f.endsWith(".md") && !NOT_HERE.contains(f))
          .sorted()
          .forEach(f -> files.add("docs/" + f));
    }
    List<Snippet> out = new ArrayList<>();
    for (String f : files) {
      DocSnippets.blocks(f).stream()
          .filter(b -> b.language().equals("java") && !NEEDS_SPRING.equals(b.name()))
          .forEach(out::add);
    }
    return out;
  }
}
