package dev.once.app;

import dev.once.app.bench.BenchCommand;
import dev.once.app.common.Secrets;
import dev.once.app.demo.DemoCommand;
import dev.once.app.ops.DashboardCommand;
import dev.once.app.ops.DeadLettersCommand;
import dev.once.app.ops.StatusCommand;
import dev.once.app.proof.CheckCommand;
import dev.once.app.proof.ProduceCommand;
import dev.once.app.proof.ResetCommand;
import dev.once.app.proof.VerifyCommand;
import dev.once.app.proof.WorkerCommand;
import dev.once.scenario.net.NoDelayHttpServer;
import java.io.PrintWriter;
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
      ProduceCommand.class,
      WorkerCommand.class,
      CheckCommand.class,
      ResetCommand.class,
      VerifyCommand.class,
      SchemaCommand.class,
      StatusCommand.class,
      DeadLettersCommand.class,
      DashboardCommand.class,
      BenchCommand.class,
      CompletionCommand.class,
      CommandLine.HelpCommand.class
    })
public final class Main implements Runnable {

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line and returns the exit code (0 ok, 1 check failed, 2 bad input). */
  public static int run(String... args) {
    NoDelayHttpServer.enable(); // before the first server: the dashboard, /metrics, the demo's
    Secrets.learnAll(args);
    JulBridge.install();
    return commandLine().execute(args);
  }

  /** As {@link #run(String...)}, printing through {@code out} and {@code err} (for tests). */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    NoDelayHttpServer.enable();
    Secrets.learnAll(args);
    JulBridge.install();
    CommandLine cli = commandLine();
    cli.setOut(out);
    cli.setErr(err);
    return cli.execute(args);
  }

  /** The whole command tree, with its error handlers and the example line of every help. */
  static CommandLine commandLine() {
    CommandLine cli = new CommandLine(new Main());
    cli.setExecutionExceptionHandler(new ErrorHandler());
    cli.setParameterExceptionHandler(new ErrorHandler.BadArguments());
    Examples.apply(cli);
    return cli;
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.err);
  }

  /** The version and the commit, from the resources Maven writes at build time. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {BuildInfo.read().describe()};
    }
  }
}
