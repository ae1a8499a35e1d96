package dev.once.app;

import dev.once.app.bench.BenchCommand;
import dev.once.app.demo.DemoCommand;
import dev.once.app.ops.DeadLettersCommand;
import dev.once.app.ops.StatusCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code once} command. */
@Command(
    name = "once",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Exactly-once business effects over at-least-once delivery.",
    subcommands = {
      DemoCommand.class,
      SchemaCommand.class,
      StatusCommand.class,
      DeadLettersCommand.class,
      BenchCommand.class,
      CommandLine.HelpCommand.class
    })
public final class Main implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line and returns the exit code (0 ok, 1 check failed, 2 bad input). */
  public static int run(String... args) {
    CommandLine cli = new CommandLine(new Main());
    cli.setExecutionExceptionHandler(new ErrorHandler());
    return cli.execute(args);
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.err);
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Main.class.getPackage().getImplementationVersion();
      return new String[] {"once " + (v == null ? "(development build)" : v)};
    }
  }
}
