package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.LiteralTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreeScanner;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every backticked {@code Type}, {@code Type.member}, {@code Type#member} and {@code dev.once…}
 * name in README.md and docs/*.md names something that exists: a class of the reactor (its main and
 * test sources, parsed — so the Spring module's types count although this module does not depend on
 * it), a JDK class, or one of the few other libraries' types the docs name ({@link #LIBRARIES}). A
 * member is looked up in the type and its supertypes. Words in backticks that are not Java names at
 * all (product names, SQL, Kafka ACL operations) are listed in {@link #WORDS}.
 */
class DocReferencesTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  /** Capitalised words in backticks that are not meant as Java types. */
  static final Set<String> WORDS =
      Set.of(
          "MariaDB",
          "MySQL",
          "PostgreSQL",
          "RabbitMQ",
          "Kafka",
          "HikariCP",
          "Read",
          "Describe",
          "Alter",
          "Write",
          "Create",
          "Delete",
          "All");

  /**
   * Other libraries' types the docs name, by simple name. Looked up (with their members) when this
   * module has them on its class path; Spring's are not, and are taken by name.
   */
  static final Map<String, String> LIBRARIES =
      Map.ofEntries(
          Map.entry("JdbcTemplate", "org.springframework.jdbc.core.JdbcTemplate"),
          Map.entry("JdbcClient", "org.springframework.jdbc.core.simple.JdbcClient"),
          Map.entry("DataSourceUtils", "org.springframework.jdbc.datasource.DataSourceUtils"),
          Map.entry(
              "DataSourceTransactionManager",
              "org.springframework.jdbc.datasource.DataSourceTransactionManager"),
          Map.entry(
              "JdbcTransactionManager", "org.springframework.jdbc.support.JdbcTransactionManager"),
          Map.entry("JpaTransactionManager", "org.springframework.orm.jpa.JpaTransactionManager"),
          Map.entry(
              "PlatformTransactionManager",
              "org.springframework.transaction.PlatformTransactionManager"),
          Map.entry(
              "TransactionTemplate", "org.springframework.transaction.support.TransactionTemplate"),
          Map.entry("TransactionStatus", "org.springframework.transaction.TransactionStatus"),
          Map.entry("JpaDialect", "org.springframework.orm.jpa.JpaDialect"),
          Map.entry("PersistenceException", "jakarta.persistence.PersistenceException"),
          Map.entry("LoggingSpanExporter", "io.opentelemetry.exporter.logging.LoggingSpanExporter"),
          Map.entry("SmartLifecycle", "org.springframework.context.SmartLifecycle"),
          Map.entry("EntityManager", "jakarta.persistence.EntityManager"),
          Map.entry("Origin", "org.springframework.boot.origin.Origin"),
          Map.entry("JsonMapper", "tools.jackson.databind.json.JsonMapper"),
          Map.entry("MeterRegistry", "io.micrometer.core.instrument.MeterRegistry"),
          Map.entry("ObservationRegistry", "io.micrometer.observation.ObservationRegistry"),
          Map.entry("Tracer", "io.micrometer.tracing.Tracer"),
          Map.entry("Propagator", "io.micrometer.tracing.propagation.Propagator"),
          Map.entry(
              "CooperativeStickyAssignor",
              "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"),
          Map.entry("HttpServer", "com.sun.net.httpserver.HttpServer"));

  private static final List<String> JDK_PACKAGES =
      List.of(
          "java.lang",
          "java.util",
          "java.util.concurrent",
          "java.util.function",
          "java.time",
          "java.sql",
          "javax.sql",
          "java.io",
          "java.nio.file",
          "java.net",
          "java.lang.management");

  /** A span that starts with a (possibly qualified) Java name. */
  private static final Pattern NAME =
      Pattern.compile(
          "^((?:[a-z][a-z0-9_]*\\.)*)([A-Z][A-Za-z0-9_]*)((?:[.#][A-Za-z_][A-Za-z0-9_]*)*)");

  private static final Pattern SPAN = Pattern.compile("`([^`\n]+)`");

  /** A type of the reactor: its members (methods, fields, constants, nested types). */
  record TypeInfo(String name, String pkg, Set<String> members, List<String> supertypes) {}

  private static final Map<String, List<TypeInfo>> TYPES = new HashMap<>();
  private static final Set<String> PACKAGES = new HashSet<>();

  /** The string literals of the reactor's main code: names it writes, e.g. an error class. */
  private static final Set<String> LITERALS = new HashSet<>();

  /** The names of the reactor's files, for a backticked file name. */
  private static final Set<String> FILES = new HashSet<>();

  private static final Pattern FILE_NAME =
      Pattern.compile("[\\w.-]+\\.(sql|md|java|json|properties|txt|yml|yaml|xml|sh|csv|html|js)");

  @BeforeAll
  static void parseTheReactor() throws IOException {
    List<Path> sources;
    List<Path> all = new ArrayList<>();
    Files.walkFileTree(
        ROOT,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
            String name = dir.getFileName().toString();
            return !dir.equals(ROOT) && (name.equals("target") || name.startsWith("."))
                ? FileVisitResult.SKIP_SUBTREE
                : FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            all.add(file);
            return FileVisitResult.CONTINUE;
          }
        });
    all.forEach(p -> FILES.add(p.getFileName().toString()));
    sources =
        all.stream()
            .filter(p -> p.toString().endsWith(".java"))
            .filter(
                p -> ROOT.relativize(p).toString().matches("(examples/)?[^/]+/src/[^/]+/java/.*"))
            .toList();
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
      Iterable<? extends JavaFileObject> units = files.getJavaFileObjectsFromPaths(sources);
      JavacTask task =
          (JavacTask) javac.getTask(null, files, d -> {}, List.of("-proc:none"), null, units);
      for (CompilationUnitTree unit : task.parse()) {
        String pkg = unit.getPackageName() == null ? "" : unit.getPackageName().toString();
        boolean main = unit.getSourceFile().toUri().getPath().contains("/src/main/");
        PACKAGES.add(pkg);
        new TreeScanner<Void, String>() {
          @Override
          public Void visitClass(ClassTree c, String outer) {
            String name =
                outer.isEmpty() ? c.getSimpleName().toString() : outer + "." + c.getSimpleName();
            Set<String> members = new HashSet<>();
            for (Tree m : c.getMembers()) {
              if (m instanceof MethodTree method) {
                members.add(method.getName().toString());
              } else if (m instanceof VariableTree v) {
                members.add(v.getName().toString());
              } else if (m instanceof ClassTree nested) {
                members.add(nested.getSimpleName().toString());
              }
            }
            List<String> supers = new ArrayList<>();
            if (c.getExtendsClause() != null) {
              supers.add(simple(c.getExtendsClause()));
            }
            c.getImplementsClause().forEach(t -> supers.add(simple(t)));
            TypeInfo info = new TypeInfo(name, pkg, members, supers);
            TYPES.computeIfAbsent(name, k -> new ArrayList<>()).add(info);
            String simpleName = c.getSimpleName().toString();
            if (!simpleName.equals(name)) {
              TYPES.computeIfAbsent(simpleName, k -> new ArrayList<>()).add(info);
            }
            return super.visitClass(c, name);
          }

          @Override
          public Void visitLiteral(LiteralTree literal, String outer) {
            if (main && literal.getValue() instanceof String text) {
              LITERALS.add(text);
            }
            return null;
          }
        }.scan(unit, "");
      }
    }
  }

  private static String simple(Tree type) {
    String s = type.toString().replaceAll("<.*", "");
    return s.substring(s.lastIndexOf('.') + 1);
  }

  record Reference(String file, int line, String text) {
    @Override
    public String toString() {
      return file + ":" + line + ": `" + text + "`";
    }
  }

  /** The backticked spans outside code blocks that start with a Java name. */
  static List<Reference> references() throws IOException {
    List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
      files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    List<Reference> out = new ArrayList<>();
    for (Path doc : docs) {
      boolean fenced = false;
      List<String> lines = Files.readAllLines(doc);
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (line.strip().startsWith("```")) {
          fenced = !fenced;
          continue;
        }
        if (fenced) {
          continue;
        }
        Matcher m = SPAN.matcher(line);
        while (m.find()) {
          String span = m.group(1).strip();
          Matcher name = NAME.matcher(span);
          boolean javaName =
              name.find()
                  && !(name.end() < span.length() && "-:".indexOf(span.charAt(name.end())) >= 0);
          if (javaName || span.startsWith("dev.once") || FILE_NAME.matcher(span).matches()) {
            out.add(new Reference(ROOT.relativize(doc).toString(), i + 1, span));
          }
        }
      }
    }
    return out;
  }

  @Test
  void everyTypeAndMemberNamedInTheDocsExists() throws IOException {
    List<Reference> refs = references();
    assertThat(refs).as("type references found in README.md and docs/").hasSizeGreaterThan(200);
    Set<String> broken = new LinkedHashSet<>();
    for (Reference r : refs) {
      if (!resolves(r.text())) {
        broken.add(r.toString());
      }
    }
    assertThat(broken).as("names in the docs that no class has").isEmpty();
  }

  @Test
  void aMisspelledTypeOrMemberIsCaught() {
    assertThat(resolves("PayloadConverter")).isFalse();
    assertThat(resolves("Dialect.queueTransaction()")).isFalse();
    assertThat(resolves("dev.once.spi.Nothing")).isFalse();
    assertThat(resolves("PayloadCodec")).isTrue();
    assertThat(resolves("OnceBuilder.transactions(..)")).isTrue();
    assertThat(resolves("Event.Builder.codec")).isTrue();
    assertThat(resolves("dev.once.spi.TransactionRunner")).isTrue();
    assertThat(resolves("Runtime.getRuntime().halt(137)")).isTrue();
    assertThat(resolves("SELECT")).isTrue(); // not a Java name: SQL
    assertThat(resolves("internal.Wakeup")).isTrue();
    assertThat(resolves("internal.Nothing")).isFalse();
    assertThat(resolves("V1__once_core.sql")).isTrue();
    assertThat(resolves("V0__never.sql")).isFalse();
    assertThat(resolves("dev.once.AttemptsExhausted")).isTrue(); // an error class the code writes
  }

  /** Whether {@code span} names an existing type (and member), or is no Java name at all. */
  static boolean resolves(String span) {
    if (FILE_NAME.matcher(span).matches()) {
      return FILES.contains(span);
    }
    if (LITERALS.contains(span)) {
      return true; // a name the code writes, such as the error class dev.once.AttemptsExhausted
    }
    Matcher m = NAME.matcher(span);
    if (!m.find()) {
      // a package alone, e.g. dev.once.internal, or a Maven coordinate dev.once:once-kafka
      String pkg = span.replaceAll("[^A-Za-z0-9_.].*", "").replaceAll("\\.$", "");
      return span.startsWith("dev.once:") || PACKAGES.contains(pkg);
    }
    String pkg = m.group(1).isEmpty() ? "" : m.group(1).substring(0, m.group(1).length() - 1);
    String type = m.group(2);
    if (type.equals(type.toUpperCase()) || WORDS.contains(type)) {
      return pkg.isEmpty(); // SQL, an outcome or a product name, unless qualified like a type
    }
    List<String> rest = new ArrayList<>();
    for (String part : m.group(3).split("[.#]")) {
      if (!part.isEmpty()) {
        rest.add(part);
      }
    }
    // nested types: Event.Builder.codec → type Event.Builder, member codec
    while (!rest.isEmpty()
        && Character.isUpperCase(rest.get(0).charAt(0))
        && reactor(type + "." + rest.get(0), pkg)) {
      type = type + "." + rest.remove(0);
    }
    String member = rest.isEmpty() ? null : rest.get(0);
    if (member != null && span.startsWith("…", m.end())) {
      member = member + "…"; // a test named by its beginning: MalformedRowsTest.aQueueRow…
    }
    if (reactor(type, pkg)) {
      return member == null || hasMember(type, pkg, member, new HashSet<>());
    }
    if (pkg.contains(".") && !pkg.startsWith("dev.once")) {
      return loadable(pkg + "." + type, member);
    }
    if (!pkg.isEmpty()) {
      return false;
    }
    for (String jdk : JDK_PACKAGES) {
      if (loadable(jdk + "." + type.replace('.', '$'), member)) {
        return true;
      }
    }
    String library = LIBRARIES.get(type);
    if (library == null) {
      return false;
    }
    return !canLoad(library) || loadable(library, member);
  }

  private static boolean reactor(String type, String pkg) {
    return TYPES.getOrDefault(type, List.of()).stream().anyMatch(t -> inPackage(t, pkg));
  }

  /** {@code pkg} empty, the type's package, or its end ({@code internal.Wakeup}). */
  private static boolean inPackage(TypeInfo t, String pkg) {
    return pkg.isEmpty() || t.pkg().equals(pkg) || t.pkg().endsWith("." + pkg);
  }

  private static boolean hasMember(String type, String pkg, String member, Set<String> seen) {
    if (!seen.add(type)) {
      return false;
    }
    for (TypeInfo t : TYPES.getOrDefault(type, List.of())) {
      if (!inPackage(t, pkg)) {
        continue;
      }
      if (t.members().contains(member)
          || (member.endsWith("…")
              && t.members().stream()
                  .anyMatch(n -> n.startsWith(member.substring(0, member.length() - 1))))) {
        return true;
      }
      for (String s : t.supertypes()) {
        if (TYPES.containsKey(s) ? hasMember(s, "", member, seen) : jdkMember(s, member)) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean jdkMember(String simpleName, String member) {
    for (String jdk : JDK_PACKAGES) {
      if (loadable(jdk + "." + simpleName, member)) {
        return true;
      }
    }
    return false;
  }

  private static boolean canLoad(String className) {
    try {
      Class.forName(className, false, DocReferencesTest.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Whether the class loads and (if a member is named) has a public method or field of it. */
  private static boolean loadable(String className, String member) {
    Class<?> c;
    try {
      c = Class.forName(className, false, DocReferencesTest.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
    if (member == null) {
      return true;
    }
    for (Method method : c.getMethods()) {
      if (method.getName().equals(member)) {
        return true;
      }
    }
    for (Field field : c.getFields()) {
      if (field.getName().equals(member)) {
        return true;
      }
    }
    for (Class<?> nested : c.getClasses()) {
      if (nested.getSimpleName().equals(member)) {
        return true;
      }
    }
    return false;
  }
}
