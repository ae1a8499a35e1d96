package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every link of the Markdown a user reads — README.md and the other Markdown files at the root,
 * docs/*.md, bench/README.md, the examples' — leads somewhere: a relative link to a file or folder
 * of the repository, and its {@code #anchor} to a heading of that file (as GitHub makes the anchor
 * of a heading); and every {@code docs/…} or {@code bench/…} path the text names, in prose or in a
 * command, is a file of the repository. Links to other sites are not fetched.
 */
class DocLinksTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  /** {@code [text](target)} and {@code ![alt](target)}; the target without a title. */
  private static final Pattern LINK =
      Pattern.compile("!?\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

  /** A path into docs/ or bench/ named in the text. */
  private static final Pattern PATH =
      Pattern.compile("(?<![\\w/.-])(?:docs|bench)/[\\w.-][\\w./-]*");

  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

  @Test
  void everyLinkAndPathInTheDocsLeadsToAFileAndAHeading() throws IOException {
    List<Path> docs = docs();
    assertThat(docs).as("Markdown files").hasSizeGreaterThan(10);
    Set<String> broken = new LinkedHashSet<>();
    for (Path doc : docs) {
      broken.addAll(broken(doc));
    }
    assertThat(broken).as("links and paths that lead nowhere").isEmpty();
  }

  @Test
  void aMissingFileAMissingHeadingAndAMissingPathAreCaught() throws IOException {
    Path doc = ROOT.resolve("docs/A-PAGE.md"); // not written: its lines are given
    List<String> lines =
        """
        # A page

        [fine](PERFORMANCE.md#history), [also fine](#a-page), [site](https://example.com),
        `bench/e2e-service.sh`, [gone](NOWHERE.md), [no heading](PERFORMANCE.md#round-99),
        [no heading here](#nothing), run docs/performance/r3-run.sh
        """
            .lines()
            .toList();
    assertThat(broken(doc, lines))
        .hasSize(4)
        .anySatisfy(s -> assertThat(s).contains("NOWHERE.md"))
        .anySatisfy(s -> assertThat(s).contains("#round-99"))
        .anySatisfy(s -> assertThat(s).contains("#nothing"))
        .anySatisfy(s -> assertThat(s).contains("docs/performance/r3-run.sh"));
  }

  @Test
  void anchorsAreMadeAsGitHubMakesThem() {
    assertThat(anchor("The HTTP front: `--lost-response-rate`"))
        .isEqualTo("the-http-front---lost-response-rate");
    assertThat(anchor("Tracing (`once-tracing`)")).isEqualTo("tracing-once-tracing");
    assertThat(anchor("Tracing's cost end to end")).isEqualTo("tracings-cost-end-to-end");
    assertThat(anchor("Writing a [dialect](x.md)")).isEqualTo("writing-a-dialect");
  }

  /** What in {@code doc} leads nowhere, as "file:line: target". */
  static List<String> broken(Path doc) throws IOException {
    return broken(doc, Files.readAllLines(doc));
  }

  static List<String> broken(Path doc, List<String> lines) {
    List<String> out = new ArrayList<>();
    boolean fenced = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      String where = ROOT.relativize(doc) + ":" + (i + 1) + ": ";
      if (line.strip().startsWith("```")) {
        fenced = !fenced;
        continue;
      }
      if (!fenced) {
        Matcher link = LINK.matcher(line);
        while (link.find()) {
          String target = link.group(1);
          if (!leads(doc, lines, target)) {
            out.add(where + target);
          }
        }
      }
      Matcher path = PATH.matcher(line);
      while (path.find()) {
        String named = path.group().replaceAll("[.]+$", "");
        if (!Files.exists(ROOT.resolve(named))) {
          out.add(where + named);
        }
      }
    }
    return out;
  }

  private static boolean leads(Path doc, List<String> lines, String target) {
    if (target.matches("^[a-z][a-z0-9+.-]*:.*")) {
      return true; // https:, mailto: — another site
    }
    int hash = target.indexOf('#');
    String file = hash < 0 ? target : target.substring(0, hash);
    String fragment = hash < 0 ? null : target.substring(hash + 1);
    if (file.isEmpty()) {
      return fragment == null || fragment.isEmpty() || anchors(lines).contains(fragment);
    }
    Path resolved = doc.getParent().resolve(file).normalize();
    if (!resolved.startsWith(ROOT) || !Files.exists(resolved)) {
      return false;
    }
    if (fragment == null || fragment.isEmpty()) {
      return true;
    }
    return resolved.toString().endsWith(".md") && anchors(resolved).contains(fragment);
  }

  private static final Map<Path, Set<String>> ANCHORS = new HashMap<>();

  /** The anchors GitHub gives the headings of a Markdown file, duplicates numbered. */
  static Set<String> anchors(Path file) {
    return ANCHORS.computeIfAbsent(
        file,
        f -> {
          try {
            return anchors(Files.readAllLines(f));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  static Set<String> anchors(List<String> lines) {
    Set<String> out = new LinkedHashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    boolean fenced = false;
    for (String line : lines) {
      if (line.strip().startsWith("```")) {
        fenced = !fenced;
      }
      Matcher m = HEADING.matcher(line);
      if (!fenced && m.matches()) {
        String a = anchor(m.group(1));
        int n = seen.merge(a, 1, Integer::sum) - 1;
        out.add(n == 0 ? a : a + "-" + n);
      }
    }
    return out;
  }

  /** GitHub's anchor of a heading: its text, lower case, without punctuation, spaces as hyphens. */
  static String anchor(String heading) {
    String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replace("`", "");
    return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\s_-]", "").replace(' ', '-');
  }

  /** The Markdown files a user reads. */
  static List<Path> docs() throws IOException {
    List<Path> out = new ArrayList<>();
    for (String folder : List.of(".", "docs", "bench")) {
      try (Stream<Path> files = Files.list(ROOT.resolve(folder))) {
        files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
      }
    }
    try (Stream<Path> files = Files.walk(ROOT.resolve("examples"), 2)) {
      files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
    }
    return out;
  }
}
