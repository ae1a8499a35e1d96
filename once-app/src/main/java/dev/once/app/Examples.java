package dev.once.app;

import java.util.Map;
import picocli.CommandLine;

/**
 * One example line at the end of every command's {@code --help}, kept here in one list so that they
 * read alike. A command that declares a footer of its own keeps it. A new command adds its line
 * here: {@code CommandLineTest} fails for a {@code --help} without one.
 */
final class Examples {
  static final String DB = "jdbc:postgresql:shop";

  private static final Map<String, String> BY_COMMAND =
      Map.ofEntries(
          Map.entry("once", "once demo --events 300"),
          Map.entry("once demo", "once demo --events 300 --crash-rate 0.1 --seed 7"),
          Map.entry("once produce", "once produce --db " + DB + " --events 10000 --rate 500"),
          Map.entry("once worker", "once worker --db " + DB + " --threads 8 --relays 2"),
          Map.entry("once check", "once check --db " + DB + " --wait 60"),
          Map.entry("once reset", "once reset --db " + DB),
          Map.entry("once verify", "once verify --workers 4 --events 20000 --kills 50"),
          Map.entry("once schema", "once schema print > once-schema.sql"),
          Map.entry("once schema print", "once schema print > once-schema.sql"),
          Map.entry("once schema apply", "once schema apply --db " + DB + " --schema app"),
          Map.entry("once schema status", "once schema status --db " + DB + " --schema app"),
          Map.entry("once dashboard", "once dashboard --db " + DB + " --port 8080 --read-only"),
          Map.entry("once status", "once status --db " + DB + " --json"),
          Map.entry(
              "once dead-letters", "once dead-letters list --db " + DB + " --schema once_demo"),
          Map.entry(
              "once dead-letters list", "once dead-letters list --consumer warehouse --since 2h"),
          Map.entry("once dead-letters show", "once dead-letters show 3-7 12 --mask card,email"),
          Map.entry(
              "once dead-letters keys",
              "once dead-letters keys --consumer order-status --limit 20"),
          Map.entry(
              "once dead-letters replay",
              "once dead-letters replay 3-7 --reason \"bug 1234 fixed\""),
          Map.entry(
              "once dead-letters discard",
              "once dead-letters discard 12 --reason \"order cancelled\""),
          Map.entry(
              "once dead-letters move", "once dead-letters move --transport rabbitmq --limit 500"),
          Map.entry("once bench", "once bench --db " + DB + " --json > bench.json"),
          Map.entry("once bench markers", "once bench markers --markers 1000000"),
          Map.entry("once bench e2e", "once bench e2e --db " + DB + " --events 20000 --json"),
          Map.entry("once bench backlog", "once bench backlog --events 1000000 --seconds 300"),
          Map.entry("once bench faults", "once bench faults --transport rabbitmq --json"),
          Map.entry("once bench tracing", "once bench tracing --rounds 8 --json > tracing.json"),
          Map.entry(
              "once bench parked-key", "once bench parked-key --behind 1000 --rounds 5 --json"),
          Map.entry("once help", "once help dead-letters"),
          Map.entry("once completion", "source <(once completion)"));

  private Examples() {}

  /**
   * Gives {@code cli} and every command under it {@code --help} (some subcommands declared none)
   * and its example footer.
   */
  static void apply(CommandLine cli) {
    if (cli.getCommandSpec().optionsMap().get("--help") == null) {
      cli.getCommandSpec().mixinStandardHelpOptions(true);
    }
    CommandLine.Model.UsageMessageSpec usage = cli.getCommandSpec().usageMessage();
    String example = BY_COMMAND.get(cli.getCommandSpec().qualifiedName());
    if (example != null && usage.footer().length == 0) {
      usage.footer("%nExample: " + example.replace("%", "%%"));
    }
    cli.getSubcommands().values().forEach(Examples::apply);
  }
}
