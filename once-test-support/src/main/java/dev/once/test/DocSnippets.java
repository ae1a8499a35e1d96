package dev.once.test;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * The fenced code blocks of README.md and docs/*.md, for tests that compile and run them as the
 * docs show them (once-app's DocSnippetsTest, the Spring example's DocExamplesTest). A block may be
 * named by the HTML comment on the line before it: {@code <!-- snippet: NAME (what a test does with
 * it) -->}.
 */
public final class DocSnippets {
  private static final Pattern BLOCK =
      Pattern.compile("(?m)^```(\\w*)\\n(.*?)^```", Pattern.DOTALL);
  private static final Pattern NAME = Pattern.compile("<!-- snippet: ([\\w-]+)[^\\n]*-->\\s*$");

  private DocSnippets() {}

  /** One fenced block: its file (relative to the repository), first line, language and name. */
  public record Snippet(String file, int line, String language, String name, String code) {
    /** A class name for a block that is not a compilation unit of its own. */
    public String className() {
      return "Snippet_" + file.replaceAll("[^A-Za-z0-9]", "_") + "_" + line;
    }

    /** Whether the block declares a class (and is compiled as it stands). */
    public boolean isCompilationUnit() {
      return Pattern.compile("(?m)^(public |final |abstract )*class ").matcher(code).find();
    }

    /** The first class the block declares, e.g. {@code QuickStart}. */
    public String declaredClass() {
      Matcher m = Pattern.compile("(?m)^(?:public |final |abstract )*class (\\w+)").matcher(code);
      if (!m.find()) {
        throw new IllegalStateException(this + " declares no class");
      }
      return m.group(1);
    }

    @Override
    public String toString() {
      return file + " (block at line " + line + ")";
    }
  }

  /**
   * The repository's root: the nearest directory above the working one with README.md and docs/.
   */
  public static Path root() {
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("docs"))) {
        return p;
      }
    }
    throw new IllegalStateException("no README.md with a docs/ beside it above " + Path.of(""));
  }

  /** Every fenced block of {@code file} (a path relative to the repository's root). */
  public static List<Snippet> blocks(String file) {
    String text;
    try {
      text = Files.readString(root().resolve(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Snippet> out = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      String before =
          text.substring(Math.max(0, text.lastIndexOf('\n', m.start() - 2) + 1), m.start());
      Matcher name = NAME.matcher(before);
      int line = text.substring(0, m.start()).split("\n", -1).length;
      out.add(new Snippet(file, line, m.group(1), name.find() ? name.group(1) : null, m.group(2)));
    }
    return out;
  }

  /** The block of {@code file} named {@code name}; fails naming both when there is none. */
  public static Snippet named(String file, String name) {
    return blocks(file).stream()
        .filter(s -> name.equals(s.name()))
        .findFirst()
        .orElseThrow(
            () -> new AssertionError(file + " has no block after <!-- snippet: " + name + " -->"));
  }

  /** A source to compile: the class it declares, its text, and the snippet it came from. */
  public record Unit(String className, String source, Snippet origin) {}

  /**
   * Compiles {@code units} into {@code out} against {@code classpath}; returns the errors, each
   * naming the doc, the block's line and the line of source it is about (none: it compiled).
   */
  public static List<String> compile(List<Unit> units, Path out, String classpath) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      List<JavaFileObject> sources = new ArrayList<>();
      units.forEach(u -> sources.add(new Source(u)));
      List<String> options = List.of("-classpath", classpath, "-d", out.toString(), "-proc:none");
      javac.getTask(null, files, diagnostics, options, null, sources).call();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> errors = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() == Diagnostic.Kind.ERROR) {
        Source s = (Source) d.getSource();
        errors.add(
            s.unit.origin()
                + ": "
                + d.getMessage(Locale.ROOT)
                + " — in: "
                + s.lineOf(d.getLineNumber()));
      }
    }
    return errors;
  }

  /**
   * Starts {@code mainClass} from {@code classes} (then {@code classpath}) in a JVM of its own, as
   * a user runs a program, with {@code env} added to this process's environment; its output (both
   * streams) goes to {@code log}.
   */
  public static Process start(
      Path classes, String classpath, String mainClass, Map<String, String> env, Path log)
      throws IOException {
    String jvm = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb =
        new ProcessBuilder(jvm, "-cp", classes + File.pathSeparator + classpath, mainClass)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    pb.environment().putAll(env);
    return pb.start();
  }

  private static final class Source extends SimpleJavaFileObject {
    final Unit unit;

    Source(Unit unit) {
      super(URI.create("string:///" + unit.className().replace('.', '/') + ".java"), Kind.SOURCE);
      this.unit = unit;
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
      return unit.source();
    }

    String lineOf(long n) {
      String[] lines = unit.source().split("\n", -1);
      return n >= 1 && n <= lines.length ? lines[(int) n - 1].strip() : "?";
    }
  }
}
