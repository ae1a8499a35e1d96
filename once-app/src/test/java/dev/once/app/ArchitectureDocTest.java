package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The module tables of README.md ("Modules") and docs/ARCHITECTURE.md ("Modules") say what the
 * build is: both list exactly the reactor's modules (the root POM's {@code <modules>}); each row of
 * ARCHITECTURE.md names the packages of that module's main sources, and its "depends on" column
 * names only dependencies the module's POM declares outside the test scope — every one of Once's
 * own modules among them, those marked "(provided)" with that scope, those after "optional:"
 * optional and the others not. The POMs are read with the JDK's XML parser.
 */
class ArchitectureDocTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern TICKED = Pattern.compile("`([^`]+)`");

  /** A dependency as a POM declares it. */
  record Dependency(String artifactId, String scope, boolean optional) {}

  /** A module of the reactor: its folder, artifactId, dependencies and main packages. */
  record Module(
      String path, String artifactId, List<Dependency> dependencies, Set<String> packages) {
    boolean dependsOn(String artifactId) {
      return dependencies.stream().anyMatch(d -> d.artifactId().equals(artifactId));
    }
  }

  /** One row of a Markdown table: its line number and its cells. */
  record Row(int line, List<String> cells) {}

  @Test
  void theReadmeModuleTableListsTheReactorsModules() throws Exception {
    Set<String> listed = new TreeSet<>();
    for (Row row : table(ROOT.resolve("README.md"), "## Modules")) {
      listed.addAll(ticked(row.cells().get(0)));
    }
    assertThat(listed)
        .as("modules in README.md's module table")
        .isEqualTo(new TreeSet<>(reactor().keySet()));
  }

  @Test
  void theArchitectureModuleTableListsTheReactorsModules() throws Exception {
    List<String> listed = new ArrayList<>();
    for (Row row : architectureRows()) {
      List<String> names = ticked(row.cells().get(0));
      assertThat(names).as("ARCHITECTURE.md:%d names one module", row.line()).hasSize(1);
      listed.add(names.get(0));
    }
    assertThat(listed).as("modules in ARCHITECTURE.md's table").doesNotHaveDuplicates();
    assertThat(new TreeSet<>(listed)).isEqualTo(new TreeSet<>(reactor().keySet()));
  }

  @Test
  void eachModulesPackagesAreTheOnesItsSourcesDeclare() throws Exception {
    Map<String, Module> reactor = reactor();
    List<String> wrong = new ArrayList<>();
    for (Row row : architectureRows()) {
      Module module = reactor.get(ticked(row.cells().get(0)).get(0));
      Set<String> stated = new TreeSet<>(ticked(row.cells().get(1)));
      if (module != null && !stated.equals(module.packages())) {
        wrong.add(module.path() + ": stated " + stated + ", sources " + module.packages());
      }
    }
    assertThat(wrong).as("ARCHITECTURE.md's packages column against the sources").isEmpty();
  }

  @Test
  void everyDependencyArrowIsInThePomAndEveryArrowToAModuleIsStated() throws Exception {
    Map<String, Module> reactor = reactor();
    List<String> wrong = new ArrayList<>();
    for (Row row : architectureRows()) {
      Module module = reactor.get(ticked(row.cells().get(0)).get(0));
      if (module != null) {
        wrong.addAll(arrowErrors(module, row.cells().get(3), reactor));
      }
    }
    assertThat(wrong).as("ARCHITECTURE.md's depends-on column against the POMs").isEmpty();
  }

  @Test
  void aFalseArrowAMissingArrowAndAWrongScopeAreCaught() throws Exception {
    Map<String, Module> reactor = reactor();
    Module web = reactor.get("once-web");
    assertThat(arrowErrors(web, "`once-core`, `jakarta.servlet-api` (provided)", reactor))
        .isEmpty();
    assertThat(
            arrowErrors(
                web, "`once-core`, `jakarta.servlet-api` (provided), `once-kafka`", reactor))
        .singleElement()
        .asString()
        .contains("once-kafka");
    assertThat(arrowErrors(web, "`jakarta.servlet-api` (provided)", reactor))
        .singleElement()
        .asString()
        .contains("once-core");
    assertThat(arrowErrors(web, "`once-core`, `jakarta.servlet-api`", reactor))
        .singleElement()
        .asString()
        .contains("provided");
    Module autoconfigure = reactor.get("once-spring-boot-autoconfigure");
    assertThat(String.join("\n", arrowErrors(autoconfigure, "`once-core`", reactor)))
        .contains("once-rabbitmq"); // an optional module dependency left out
    assertThat(
            String.join(
                "\n",
                arrowErrors(
                    autoconfigure,
                    "`spring-jdbc`; optional: `once-core`, `once-rabbitmq`, `once-kafka`,"
                        + " `once-micrometer`, `once-dashboard`, `once-web`, `once-tracing`",
                    reactor)))
        .contains("once-core is not optional");
  }

  /** What is false or missing in one module's "depends on" cell. */
  static List<String> arrowErrors(Module module, String cell, Map<String, Module> reactor) {
    List<String> errors = new ArrayList<>();
    int optionalFrom = cell.indexOf("optional:");
    Set<String> stated = new LinkedHashSet<>();
    Matcher m = TICKED.matcher(cell);
    while (m.find()) {
      String name = m.group(1);
      if (cell.substring(0, m.start()).endsWith("(not ")) {
        if (module.dependsOn(name)) {
          errors.add(module.path() + " is said not to depend on " + name + ", its POM does");
        }
        continue;
      }
      String before = cell.substring(0, m.start());
      if (before.chars().filter(c -> c == '(').count()
          > before.chars().filter(c -> c == ')').count()) {
        continue; // a class named beside a module, e.g. `once-testkit` (`SimulatedCrash`)
      }
      stated.add(name);
      Dependency d =
          module.dependencies().stream()
              .filter(x -> x.artifactId().equals(name))
              .findFirst()
              .orElse(null);
      if (d == null) {
        errors.add(module.path() + " → " + name + ": not a dependency of its POM");
        continue;
      }
      boolean provided = cell.startsWith(" (provided)", m.end());
      if (provided != "provided".equals(d.scope())) {
        errors.add(
            module.path()
                + " → "
                + name
                + ": scope "
                + d.scope()
                + ", stated provided "
                + provided);
      }
      boolean optional = optionalFrom >= 0 && m.start() > optionalFrom;
      if (optional != d.optional()) {
        errors.add(
            module.path() + " → " + name + (d.optional() ? " is optional" : " is not optional"));
      }
    }
    for (Dependency d : module.dependencies()) {
      if (isModule(d.artifactId(), reactor) && !stated.contains(d.artifactId())) {
        errors.add(module.path() + " → " + d.artifactId() + ": in the POM, not in the table");
      }
    }
    return errors;
  }

  private static boolean isModule(String artifactId, Map<String, Module> reactor) {
    return reactor.values().stream().anyMatch(m -> m.artifactId().equals(artifactId));
  }

  private static List<Row> architectureRows() throws IOException {
    return table(ROOT.resolve("docs/ARCHITECTURE.md"), "## Modules");
  }

  /** The rows (header and separator left out) of the first table after {@code heading}. */
  static List<Row> table(Path file, String heading) throws IOException {
    List<String> lines = Files.readAllLines(file);
    int i = lines.indexOf(heading);
    assertThat(i).as("%s has a heading %s", file.getFileName(), heading).isNotNegative();
    while (i < lines.size() && !lines.get(i).startsWith("|")) {
      i++;
    }
    List<Row> rows = new ArrayList<>();
    for (i += 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
      String line = lines.get(i);
      List<String> cells = new ArrayList<>();
      for (String cell : line.substring(1, line.length() - 1).split("(?<!\\\\)\\|", -1)) {
        cells.add(cell.strip());
      }
      rows.add(new Row(i + 1, cells));
    }
    assertThat(rows).as("rows of the table under %s", heading).isNotEmpty();
    return rows;
  }

  private static List<String> ticked(String cell) {
    List<String> out = new ArrayList<>();
    Matcher m = TICKED.matcher(cell);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  /** The root POM's modules, by folder. */
  static Map<String, Module> reactor() throws Exception {
    Map<String, Module> modules = new LinkedHashMap<>();
    Element root = pom(ROOT.resolve("pom.xml"));
    for (Element m : children(child(root, "modules"), "module")) {
      String path = m.getTextContent().strip();
      Element pom = pom(ROOT.resolve(path).resolve("pom.xml"));
      List<Dependency> dependencies = new ArrayList<>();
      Element deps = child(pom, "dependencies");
      if (deps != null) {
        for (Element d : children(deps, "dependency")) {
          String scope = text(d, "scope");
          if (!"test".equals(scope)) {
            dependencies.add(
                new Dependency(text(d, "artifactId"), scope, "true".equals(text(d, "optional"))));
          }
        }
      }
      modules.put(path, new Module(path, text(pom, "artifactId"), dependencies, packages(path)));
    }
    assertThat(modules).as("modules of the root pom.xml").hasSizeGreaterThan(10);
    return modules;
  }

  private static Set<String> packages(String module) {
    Path main = ROOT.resolve(module).resolve("src/main/java");
    Set<String> out = new TreeSet<>();
    if (!Files.isDirectory(main)) {
      return out;
    }
    try (Stream<Path> files = Files.walk(main)) {
      files
          .filter(p -> p.toString().endsWith(".java"))
          .filter(p -> !p.getFileName().toString().equals("package-info.java"))
          .forEach(p -> out.add(main.relativize(p.getParent()).toString().replace('/', '.')));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static Element pom(Path file) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    return factory.newDocumentBuilder().parse(file.toFile()).getDocumentElement();
  }

  private static Element child(Element parent, String name) {
    for (Element e : children(parent, name)) {
      return e;
    }
    return null;
  }

  private static List<Element> children(Element parent, String name) {
    List<Element> out = new ArrayList<>();
    NodeList nodes = parent.getChildNodes();
    for (int i = 0; i < nodes.getLength(); i++) {
      Node n = nodes.item(i);
      if (n instanceof Element e && e.getTagName().equals(name)) {
        out.add(e);
      }
    }
    return out;
  }

  private static String text(Element parent, String name) {
    Element e = child(parent, name);
    return e == null ? null : e.getTextContent().strip();
  }
}
