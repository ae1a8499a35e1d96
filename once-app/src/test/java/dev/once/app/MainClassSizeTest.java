package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No file of main code in the reactor is longer than {@value #LIMIT} lines: a class that grows past
 * it is split along its seams (what it does in parts), not allowed to become the god class the
 * codebases we model are blamed for. The JMH module ({@code once-bench}) is left out: its
 * benchmarks are generated-style state holders that the JMH annotations want in one class.
 *
 * <p>{@link #BEING_SPLIT} lists the files another piece of work is splitting right now; each entry
 * goes as soon as its file is under the limit (the test fails on an entry that no longer needs to
 * be there, so the list cannot go stale).
 */
class MainClassSizeTest {
  static final int LIMIT = 400;

  /** The repository; {@code -Donce.sizeCheck.root=DIR} points the check at another tree. */
  private static final Path ROOT =
      Path.of(System.getProperty("once.sizeCheck.root", "..")).toAbsolutePath().normalize();

  /** Modules whose main code is not held to the limit. */
  private static final Set<String> EXEMPT_MODULES = Set.of("once-bench");

  /** Files over the limit that are being split elsewhere, by path from the repository root. */
  static final Set<String> BEING_SPLIT =
      Set.of("once-app/src/main/java/dev/once/app/ops/DeadLettersCommand.java");

  @Test
  void noMainClassIsLongerThanTheLimit() {
    Map<String, Long> over = linesOfMainFiles();
    over.values().removeIf(lines -> lines <= LIMIT);
    over.keySet().removeAll(BEING_SPLIT);
    assertThat(over)
        .as("main files over " + LIMIT + " lines: split them along their seams")
        .isEmpty();
  }

  @Test
  void everyFileBeingSplitIsStillOverTheLimit() {
    Map<String, Long> lines = linesOfMainFiles();
    for (String path : BEING_SPLIT) {
      assertThat(lines.getOrDefault(path, 0L))
          .as(path + " is under the limit now (or gone): take it off BEING_SPLIT")
          .isGreaterThan(LIMIT);
    }
  }

  @Test
  void theWalkSeesTheReactor() {
    Map<String, Long> lines = linesOfMainFiles();
    assertThat(lines).containsKey("once-core/src/main/java/dev/once/Once.java");
    assertThat(lines.keySet()).noneMatch(p -> p.startsWith("once-bench/"));
    assertThat(lines.size()).isGreaterThan(300);
  }

  /** Every {@code src/main/java} file of the reactor (but the exempt modules) and its lines. */
  static Map<String, Long> linesOfMainFiles() {
    try (Stream<Path> files = Files.walk(ROOT)) {
      List<Path> main =
          files
              .filter(p -> p.toString().endsWith(".java"))
              .filter(
                  p -> ROOT.relativize(p).toString().replace('\\', '/').contains("src/main/java/"))
              .filter(p -> !isExempt(ROOT.relativize(p)))
              .toList();
      return main.stream()
          .collect(
              Collectors.toMap(
                  p -> ROOT.relativize(p).toString().replace('\\', '/'),
                  MainClassSizeTest::lines,
                  (a, b) -> a,
                  TreeMap::new));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean isExempt(Path relative) {
    for (Path part : relative) {
      String name = part.toString();
      if (name.equals("target") || name.startsWith(".")) {
        return true;
      }
    }
    return EXEMPT_MODULES.contains(relative.getName(0).toString());
  }

  private static long lines(Path file) {
    try (Stream<String> lines = Files.lines(file)) {
      return lines.count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
