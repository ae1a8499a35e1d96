package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.once.test.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * {@code once verify} starts worker and producer processes: what they need to connect (a JDBC URL
 * and an AMQP URI, passwords included) goes in their environment, never on their command line,
 * which every user of the machine reads in {@code ps} ({@code /proc/<pid>/cmdline}).
 */
class ChildCommandLineTest {
  private static final String SECRET = "S3cr3tPw";

  @Test
  void noChildOfVerifyHasAPasswordOnItsCommandLine() throws Exception {
    String url =
        TestDatabase.embeddedUrl() + "&password=" + SECRET; // trust: the password is ignored
    // no kills: a child started again after one gets the command line its first run had (Slot)
    CompletableFuture<Cli.Run> verify =
        CompletableFuture.supplyAsync(
            () ->
                Cli.run(
                    "verify", "--db", url, "--workers", "2", "--events", "200", "--kills", "0"));
    Set<String> commandLines = new LinkedHashSet<>();
    while (!verify.isDone()) {
      ProcessHandle.current().descendants().forEach(p -> commandLines.add(commandLine(p.pid())));
      Thread.sleep(20);
    }
    Cli.Run run = verify.get();
    assertThat(run.exit()).as(run.out() + run.err()).isZero();
    assertThat(commandLines)
        .anyMatch(c -> c.contains(" worker "))
        .anyMatch(c -> c.contains(" produce "));
    assertThat(commandLines)
        .as("command lines of verify's children")
        .noneMatch(c -> c.contains(SECRET))
        .noneMatch(c -> c.contains("guest:guest")) // the default AMQP URI's password
        .noneMatch(c -> c.contains("jdbc:"));
    assertThat(run.out() + run.err()).doesNotContain(SECRET);
  }

  private static String commandLine(long pid) {
    try {
      byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
      return new String(raw, StandardCharsets.UTF_8).replace('\0', ' ');
    } catch (IOException e) {
      return ""; // gone meanwhile
    }
  }
}
