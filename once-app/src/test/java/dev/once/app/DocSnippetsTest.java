package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.once.Once;
import dev.once.tablequeue.TableQueueTransport;
import dev.once.test.TestDatabase;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.URI;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Every ```java block of README.md and docs/*.md compiles against the current API, and the README's
 * "Use it" block runs. The exceptions need Spring, which this module does not have: docs/SPRING.md
 * ({@link #NOT_HERE}) and README blocks marked {@value #NEEDS_SPRING}. A block that declares a
 * class is compiled as it stands; any other block is the body of a method of a class that declares
 * the names the docs take as given ({@link #CONTEXT}: your DataSource {@code ds}, a {@code
 * transport}, …). {@code Once once = } becomes an assignment to the context's field, so that the
 * test can close what the README started.
 */
class DocSnippetsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  /** Docs whose blocks need a classpath this module does not have. */
  static final List<String> NOT_HERE = List.of("SPRING.md");

  static final String NEEDS_SPRING = "<!-- snippet: needs Spring";

  static final String IMPORTS =
      """
      import dev.once.*;
      import dev.once.spi.*;
      import dev.once.tablequeue.*;
      import dev.once.rabbitmq.*;
      import dev.once.kafka.*;
      import dev.once.micrometer.*;
      import dev.once.testkit.*;
      import dev.once.dashboard.*;
      import java.time.*;
      import java.util.*;
      import javax.sql.DataSource;
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
      """;

  record Snippet(String file, int line, String code) {
    String className() {
      return "Snippet_" + file.replaceAll("[^A-Za-z0-9]", "_") + "_" + line;
    }

    boolean isCompilationUnit() {
      return Pattern.compile("(?m)^(public |final |abstract )*class ").matcher(code).find();
    }

    String source() {
      if (isCompilationUnit()) {
        return code;
      }
      String body = code.replaceAll("(?m)^Once once = ", "once = ");
      return IMPORTS
          + "public class "
          + className()
          + " {\n"
          + CONTEXT
          + "  public void run() throws Exception {\n"
          + body
          + "\n  }\n}\n";
    }
  }

  @Test
  void everyJavaBlockOfTheDocsCompiles() throws IOException {
    List<Snippet> snippets = snippets();
    assertThat(snippets).as("java blocks found in README.md and docs/").hasSizeGreaterThan(8);
    DiagnosticCollector<JavaFileObject> errors = compile(snippets, Files.createTempDirectory("s"));
    assertThat(describe(errors)).as("compile errors in doc snippets").isEmpty();
  }

  @Test
  void theReadmeQuickStartRunsAndShipsTheOrderOnce() throws Exception {
    try (TestDatabase db = TestDatabase.embedded()) {
      db.execute("CREATE TABLE orders (order_id text)");
      db.execute("CREATE TABLE shipments (order_id text)");
      runReadmeSnippet(
          "\"shipping\"",
          db,
          once -> {
            await()
                .atMost(Duration.ofSeconds(30))
                .until(
                    () -> db.count("SELECT count(*) FROM shipments WHERE order_id = 'A-17'") == 1);
            assertThat(db.count("SELECT count(*) FROM orders")).isOne();
            assertThat(db.count("SELECT count(*) FROM shipments")).isOne();
            assertThat(db.count("SELECT count(*) FROM once_inbox WHERE consumer_id = 'shipping'"))
                .isOne();
          });
    }
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
          "label-printer",
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
   * Compiles the first README block containing {@code marker}, runs it against {@code db}, runs
   * {@code check} and closes the {@code Once} the block built.
   */
  private void runReadmeSnippet(String marker, TestDatabase db, WhileRunning check)
      throws Exception {
    Snippet block =
        snippets().stream()
            .filter(s -> s.file().equals("README.md") && s.code().contains(marker))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no README block contains " + marker));
    Path out = Files.createTempDirectory("readme");
    assertThat(describe(compile(List.of(block), out))).isEmpty();
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
    List<Path> files = new ArrayList<>();
    files.add(ROOT.resolve("README.md"));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md"))
          .filter(p -> !NOT_HERE.contains(p.getFileName().toString()))
          .sorted()
          .forEach(files::add);
    }
    List<Snippet> out = new ArrayList<>();
    Pattern block = Pattern.compile("(?m)^```java\\n(.*?)^```", Pattern.DOTALL);
    for (Path f : files) {
      String text = Files.readString(f);
      Matcher m = block.matcher(text);
      while (m.find()) {
        if (text.substring(Math.max(0, m.start() - 80), m.start()).contains(NEEDS_SPRING)) {
          continue;
        }
        int line = text.substring(0, m.start()).split("\n", -1).length;
        out.add(new Snippet(ROOT.relativize(f).toString(), line, m.group(1)));
      }
    }
    return out;
  }

  private static DiagnosticCollector<JavaFileObject> compile(List<Snippet> snippets, Path out)
      throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      List<JavaFileObject> units = new ArrayList<>();
      for (Snippet s : snippets) {
        units.add(new Source(s));
      }
      List<String> options =
          List.of(
              "-classpath",
              System.getProperty("java.class.path"),
              "-d",
              out.toString(),
              "-proc:none");
      javac.getTask(null, files, diagnostics, options, null, units).call();
    }
    return diagnostics;
  }

  private static List<String> describe(DiagnosticCollector<JavaFileObject> diagnostics) {
    List<String> errors = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() == Diagnostic.Kind.ERROR) {
        Source s = (Source) d.getSource();
        errors.add(
            s.snippet.file()
                + " (block at line "
                + s.snippet.line()
                + "): "
                + d.getMessage(Locale.ROOT)
                + " — in: "
                + s.lineOf(d.getLineNumber()));
      }
    }
    return errors;
  }

  private static final class Source extends SimpleJavaFileObject {
    final Snippet snippet;
    final String text;

    Source(Snippet snippet) {
      super(URI.create("string:///" + snippet.className() + ".java"), Kind.SOURCE);
      this.snippet = snippet;
      this.text = snippet.source();
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
      return text;
    }

    String lineOf(long n) {
      String[] lines = text.split("\n", -1);
      return n >= 1 && n <= lines.length ? lines[(int) n - 1].strip() : "?";
    }
  }
}
