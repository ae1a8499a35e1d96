package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./once} script rebuilds itself only when a source it is built from changed, and at
 * most once: run in a copy of the checkout's shape where {@code mvnw} only counts its calls and,
 * like Maven with nothing new to package, leaves an existing jar as it was, and {@code java} only
 * says it ran.
 */
class OnceScriptTest {
  private static final Path SCRIPT = Path.of("..", "once").toAbsolutePath().normalize();

  /** When the jar was built: an hour ago. */
  private static final Instant BUILT = Instant.now().minusSeconds(3600);

  @TempDir Path clone;
  private Path jar;

  @BeforeEach
  void aBuiltCheckout() throws IOException {
    Files.copy(SCRIPT, clone.resolve("once"));
    executable(
        clone.resolve("mvnw"),
        """
        #!/usr/bin/env bash
        echo x >> "$(dirname "$0")/builds"
        mkdir -p "$(dirname "$0")/once-app/target"
        [[ -f "$(dirname "$0")/once-app/target/once-app.jar" ]] || touch "$(dirname "$0")/once-app/target/once-app.jar"
        """);
    Path bin = Files.createDirectories(clone.resolve("fake-bin"));
    executable(bin.resolve("java"), "#!/usr/bin/env bash\necho \"java $*\"\n");
    jar = file("once-app/target/once-app.jar", BUILT);
    file("pom.xml", BUILT.minusSeconds(60));
    file("once-core/src/main/java/dev/once/Once.java", BUILT.minusSeconds(60));
    file("once-core/src/main/resources/dev/once/schema/postgresql/V1__once_core.sql", BUILT);
  }

  @Test
  void generatedSourcesAndTestsNewerThanTheJarDoNotRebuildIt() throws Exception {
    // a full build (./mvnw install or package) writes these after once-app's jar
    file("once-bench/target/generated-sources/annotations/dev/once/X_jmhTest.java", later(60));
    file("once-core/target/classes/dev/once/Once.class", later(60));
    file("once-core/src/test/java/dev/once/OnceTest.java", later(60));
    file(".once/demo-pg/postgresql.conf", later(60));
    file("examples/spring-boot-warehouse/src/main/java/A.java", later(60));
    assertThat(run("--version")).isEqualTo("java -cp %s dev.once.app.Main --version", classpath());
    run("--version");
    assertThat(builds()).isZero();
  }

  @Test
  void aChangedSourceRebuildsOnceAndTheNextCallDoesNot() throws Exception {
    file("once-core/src/main/java/dev/once/Relay.java", later(60));
    run("--version");
    run("--version");
    run("--version");
    assertThat(builds()).isEqualTo(1);
  }

  @Test
  void aChangedPomOrResourceRebuildsToo() throws Exception {
    file("once-kafka/pom.xml", later(60));
    run("--version");
    assertThat(builds()).isEqualTo(1);
    // that build as if it ran two minutes after the first, and a resource saved a minute later:
    // set times, whatever the file system's resolution, and both before the next call starts
    Files.setLastModifiedTime(jar, FileTime.from(later(120)));
    file("once-core/src/main/resources/dev/once/schema/postgresql/V9__x.sql", later(180));
    run("--version");
    run("--version");
    assertThat(builds()).isEqualTo(2);
  }

  @Test
  void aMissingJarIsBuilt() throws Exception {
    Files.delete(jar);
    run("--version");
    run("--version");
    assertThat(builds()).isEqualTo(1);
  }

  private String classpath() {
    return jar + ":" + clone.resolve("once-app/target/lib/*");
  }

  private String run(String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>(List.of("bash", "once"));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).directory(clone.toFile());
    pb.environment().put("PATH", clone.resolve("fake-bin") + ":" + System.getenv("PATH"));
    pb.redirectError(ProcessBuilder.Redirect.DISCARD);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  private long builds() throws IOException {
    Path log = clone.resolve("builds");
    return Files.exists(log) ? Files.readAllLines(log).size() : 0;
  }

  /** After the jar was built, before this test ran. */
  private static Instant later(long seconds) {
    return BUILT.plusSeconds(seconds);
  }

  private Path file(String path, Instant modified) throws IOException {
    Path f = clone.resolve(path);
    Files.createDirectories(f.getParent());
    Files.writeString(f, "x");
    Files.setLastModifiedTime(f, FileTime.from(modified));
    return f;
  }

  private static void executable(Path f, String text) throws IOException {
    Files.writeString(f, text);
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxr-xr-x"));
  }
}
