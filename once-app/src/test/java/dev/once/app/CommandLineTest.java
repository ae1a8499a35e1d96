package dev.once.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** The command line itself, as a user types it: help, version, completion, bad values. */
class CommandLineTest {

  @Test
  void versionNamesTheVersionAndTheCommitItWasBuiltFrom() {
    Cli.Run r = Cli.run("--version");
    assertThat(r.exit()).isZero();
    assertThat(r.out().strip())
        .matches("once \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(commit [0-9a-f]{7,}\\)");
  }

  @Test
  void aBuildWithoutGitSaysSoInsteadOfNamingACommit() {
    assertThat(new BuildInfo("1.0.0", null).describe())
        .isEqualTo("once 1.0.0 (commit unknown: built without git)");
  }

  @Test
  void everyCommandsHelpEndsWithOneExampleLineOfThatCommand() {
    List<String> commands = new ArrayList<>();
    collect(Main.commandLine(), commands);
    assertThat(commands).contains("once dead-letters replay", "once completion", "once help");
    for (String command : commands) {
      List<String> args = new ArrayList<>(List.of(command.split(" ")));
      args.remove(0);
      args.add("--help");
      Cli.Run r = Cli.run(args.toArray(String[]::new));
      List<String> lines = r.out().lines().filter(l -> !l.isBlank()).toList();
      assertThat(r.exit()).as(command + " --help: " + r.err()).isZero();
      assertThat(lines.get(lines.size() - 1))
          .as(command + " --help ends with its example")
          .startsWith("Example: ")
          .contains(command);
      assertThat(lines.stream().filter(l -> l.startsWith("Example:"))).hasSize(1);
    }
  }

  private static void collect(CommandLine cli, List<String> into) {
    into.add(cli.getCommandSpec().qualifiedName());
    cli.getSubcommands().values().forEach(sub -> collect(sub, into));
  }

  @Test
  void theCompletionScriptCompletesSubcommandsAndOptionsInBash(@TempDir Path dir) throws Exception {
    Cli.Run r = Cli.run("completion");
    assertThat(r.exit()).isZero();
    Path script = dir.resolve("once-completion.bash");
    Files.writeString(script, r.out(), StandardCharsets.UTF_8);

    assertThat(complete(script, "once dead-letters re")).isEqualTo("replay");
    assertThat(complete(script, "once demo --crash")).isEqualTo("--crash-rate");
  }

  /** What bash completes the last word of {@code line} to, with the generated script loaded. */
  private static String complete(Path script, String line) throws Exception {
    String[] words = line.split(" ");
    String bash =
        "source '"
            + script
            + "' 2>/dev/null; COMP_WORDS=("
            + line
            + "); COMP_CWORD="
            + (words.length - 1)
            + "; COMP_LINE='"
            + line
            + "'; COMP_POINT=${#COMP_LINE}; _complete_once 2>/dev/null; echo \"${COMPREPLY[@]}\"";
    Process p = new ProcessBuilder("bash", "-c", bash).redirectErrorStream(true).start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
  }

  @ParameterizedTest(name = "once {0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "demo --events abc                           | --events | abc",
        "demo --events 0                             | --events | 0",
        "demo --crash-rate 2                         | --crash-rate | 2",
        "demo --timeout soon                         | --timeout | soon",
        "demo --transport carrier-pigeon             | --transport | carrier-pigeon",
        "produce --db jdbc:postgresql://x/y --events -3 | --events | -3",
        "produce --db jdbc:postgresql://x/y --events 3 --rate -1 | --rate | -1",
        "worker --db jdbc:postgresql://x/y --threads many | --threads | many",
        "verify --workers 99                         | --workers | 99",
        "status --db mysql://x                       | --db | mysql://x",
        "dead-letters list --limit 0                 | --limit | 0",
        "dead-letters list --since yesterday         | --since | yesterday",
        "dead-letters show 3-x                       | ID | 3-x",
        "dead-letters replay 7-3                     | ID | 7-3",
        "bench --workers 0                           | --workers | 0",
        "bench markers --markers -1                  | --markers | -1",
        "bench backlog --seconds 0                   | --seconds | 0",
        "worker --db jdbc:postgresql://x/y --threads 0 | --threads | 0",
        "worker --db jdbc:postgresql://x/y --relays -1 | --relays | -1",
        "worker --db jdbc:postgresql://x/y --visibility-timeout -5 | --visibility-timeout | -5",
        "worker --db jdbc:postgresql://x/y --metrics-port 99999 | --metrics-port | 99999",
        "demo --metrics-port 70000                   | --metrics-port | 70000",
        "check --wait -1                             | --wait | -1",
        "check --events -2                           | --events | -2",
        "produce --db jdbc:postgresql://x/y --events 3 --from 0 | --from | 0",
      })
  void aBadValueIsOneLineNamingTheFlagAndTheValueWithExitTwo(
      String args, String flag, String value) {
    Cli.Run r = Cli.run(args.strip().split("\\s+"));
    assertThat(r.exit()).as(r.err()).isEqualTo(2);
    List<String> errors = r.errLines().stream().filter(l -> l.startsWith("once: ")).toList();
    assertThat(errors).as(r.err()).hasSize(1);
    assertThat(errors.get(0)).contains(flag).contains(value);
    assertThat(r.err()).doesNotContain("Usage:").doesNotContain("\tat ");
  }

  @Test
  void aMistypedOptionNameIsSuggestedWithoutAUsageDump() {
    Cli.Run r = Cli.run("demo", "--evnts", "3");
    assertThat(r.exit()).isEqualTo(2);
    assertThat(r.err()).contains("--evnts", "--events", "once demo --help");
    assertThat(r.err()).doesNotContain("Usage:");
  }
}
