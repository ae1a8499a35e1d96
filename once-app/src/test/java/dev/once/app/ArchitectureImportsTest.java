package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.app.ArchitectureDocTest.Module;
import dev.once.app.ArchitectureDocTest.Row;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The arrows of docs/ARCHITECTURE.md's module table ("depends on") against the code, not only the
 * POMs ({@link ArchitectureDocTest}): every import in a module's main sources of a class of another
 * of Once's modules is an arrow of that module's row, or of a starter it has an arrow to (a module
 * without main sources, which only bundles the modules its row names); and every arrow to one of
 * Once's modules is used by an import, unless the row says it is there "(at run time)" (a module
 * that is configured, not called). Imports are read from the sources and resolved to the module
 * whose main sources hold the class.
 */
class ArchitectureImportsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Pattern IMPORT =
      Pattern.compile("^import\\s+(static\\s+)?([\\w.]+?)(\\.\\*)?\\s*;", Pattern.MULTILINE);
  private static final Pattern TICKED = Pattern.compile("`([^`]+)`");
  private static final String AT_RUN_TIME = " (at run time)";

  /** One row's arrows to Once's own modules; {@code atRunTime}: those marked as not imported. */
  record Arrows(Set<String> stated, Set<String> atRunTime) {}

  @Test
  void everyImportOfAnotherModuleIsAnArrowAndEveryArrowToAModuleIsImported() throws Exception {
    Map<String, Module> reactor = ArchitectureDocTest.reactor();
    Map<String, Arrows> arrows = new TreeMap<>();
    for (Row row : ArchitectureDocTest.table(ROOT.resolve("docs/ARCHITECTURE.md"), "## Modules")) {
      String name = ticked(row.cells().get(0)).get(0);
      if (reactor.containsKey(name)) {
        arrows.put(name, arrows(row.cells().get(3), reactor));
      }
    }
    List<String> wrong = new ArrayList<>();
    for (Module module : reactor.values()) {
      if (arrows.containsKey(module.path())) {
        wrong.addAll(errors(module, arrows, reactor, imported(module, reactor)));
      }
    }
    assertThat(wrong).as("ARCHITECTURE.md's depends-on column against the imports").isEmpty();
  }

  @Test
  void anImportWithoutAnArrowAndAnArrowWithoutAnImportAreCaught() throws Exception {
    Map<String, Module> reactor = ArchitectureDocTest.reactor();
    Module web = reactor.get("once-web");
    Map<String, Set<String>> imports = imported(web, reactor);
    assertThat(imports).as("(premise) once-web imports once-core").containsKey("once-core");
    assertThat(errors(web, Map.of("once-web", arrows("`once-core`")), reactor, imports)).isEmpty();
    assertThat(errors(web, Map.of("once-web", arrows("")), reactor, imports))
        .singleElement()
        .asString()
        .contains("once-web imports once-core (dev.once.");
    assertThat(
            errors(web, Map.of("once-web", arrows("`once-core`, `once-kafka`")), reactor, imports))
        .singleElement()
        .asString()
        .contains("once-web → once-kafka: stated, but no main source imports it");
    assertThat(
            errors(
                web,
                Map.of("once-web", arrows("`once-core`, `once-kafka` (at run time)")),
                reactor,
                imports))
        .isEmpty();
    // through a starter: its arrows count as the importer's, and it counts as used by them
    Map<String, Arrows> viaStarter =
        Map.of(
            "once-web", arrows("`once-spring-boot-starter`"),
            "once-spring-boot-starter", arrows("`once-core`"));
    assertThat(errors(web, viaStarter, reactor, imports)).isEmpty();
    Map<String, Arrows> starterWithout =
        Map.of(
            "once-web", arrows("`once-spring-boot-starter`"),
            "once-spring-boot-starter", arrows("`once-tracing`"));
    assertThat(errors(web, starterWithout, reactor, imports))
        .hasSize(2)
        .anyMatch(e -> e.contains("imports once-core"))
        .anyMatch(e -> e.contains("→ once-spring-boot-starter: stated"));
  }

  /** What one module's row gets wrong against its imports. */
  static List<String> errors(
      Module module,
      Map<String, Arrows> arrows,
      Map<String, Module> reactor,
      Map<String, Set<String>> imported) {
    List<String> errors = new ArrayList<>();
    Arrows own = arrows.get(module.path());
    Set<String> reach = new TreeSet<>(own.stated());
    for (String target : own.stated()) {
      if (starter(target, reactor) && arrows.containsKey(target)) {
        reach.addAll(arrows.get(target).stated());
      }
    }
    imported.forEach(
        (target, classes) -> {
          if (!reach.contains(target)) {
            errors.add(
                module.path()
                    + " imports "
                    + target
                    + " ("
                    + classes.iterator().next()
                    + (classes.size() > 1 ? " and " + (classes.size() - 1) + " more" : "")
                    + "), its row has no arrow to it");
          }
        });
    if (starter(module.path(), reactor)) {
      return errors; // a starter imports nothing: it bundles
    }
    for (String target : own.stated()) {
      boolean used =
          own.atRunTime().contains(target)
              || imported.containsKey(target)
              || (starter(target, reactor)
                  && arrows.containsKey(target)
                  && arrows.get(target).stated().stream().anyMatch(imported::containsKey));
      if (!used) {
        errors.add(module.path() + " → " + target + ": stated, but no main source imports it");
      }
    }
    return errors;
  }

  private static boolean starter(String module, Map<String, Module> reactor) {
    Module m = reactor.get(module);
    return m != null && m.packages().isEmpty();
  }

  /** A cell's arrows to Once's modules, as if they were all of the reactor. */
  private static Arrows arrows(String cell) throws Exception {
    return arrows(cell, ArchitectureDocTest.reactor());
  }

  /** The arrows of a "depends on" cell to Once's own modules (not those after "(not "). */
  private static Arrows arrows(String cell, Map<String, Module> reactor) {
    Set<String> stated = new TreeSet<>();
    Set<String> atRunTime = new TreeSet<>();
    Matcher m = TICKED.matcher(cell);
    while (m.find()) {
      String before = cell.substring(0, m.start());
      boolean inParentheses =
          before.chars().filter(c -> c == '(').count()
              > before.chars().filter(c -> c == ')').count();
      if (!inParentheses && reactor.containsKey(m.group(1))) {
        stated.add(m.group(1));
        if (cell.startsWith(AT_RUN_TIME, m.end())) {
          atRunTime.add(m.group(1));
        }
      }
    }
    return new Arrows(stated, atRunTime);
  }

  /**
   * The other modules whose classes the main sources of {@code module} import, each with the
   * classes imported.
   */
  static Map<String, Set<String>> imported(Module module, Map<String, Module> reactor) {
    Map<String, Set<String>> out = new TreeMap<>();
    Path main = ROOT.resolve(module.path()).resolve("src/main/java");
    if (!Files.isDirectory(main)) {
      return out;
    }
    try (Stream<Path> files = Files.walk(main)) {
      for (Path file : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        Matcher m = IMPORT.matcher(Files.readString(file));
        while (m.find()) {
          String name = m.group(2);
          if (!name.startsWith("dev.once")) {
            continue;
          }
          for (Module other : reactor.values()) {
            if (other != module && holds(other, name, m.group(3) != null)) {
              out.computeIfAbsent(other.path(), k -> new TreeSet<>()).add(name);
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /**
   * Whether the main sources of {@code module} hold {@code name}: a package (a wildcard import), or
   * a class, a nested class or a static member, found as the file of its outermost class.
   */
  private static boolean holds(Module module, String name, boolean wildcard) {
    if (wildcard && module.packages().contains(name)) {
      return true;
    }
    Path main = ROOT.resolve(module.path()).resolve("src/main/java");
    String[] parts = name.split("\\.");
    for (int i = parts.length; i > 1; i--) {
      String pkg = String.join(".", List.of(parts).subList(0, i - 1));
      if (module.packages().contains(pkg)
          && Files.isRegularFile(
              main.resolve(pkg.replace('.', '/')).resolve(parts[i - 1] + ".java"))) {
        return true;
      }
    }
    return false;
  }

  private static List<String> ticked(String cell) {
    List<String> out = new ArrayList<>();
    Matcher m = TICKED.matcher(cell);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }
}
