package dev.once.app;

import dev.once.app.common.Secrets;
import dev.once.app.common.UserError;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Turns failures into one line naming the problem and exit code 2; the stack trace only with {@code
 * ONCE_DEBUG=1}. Both go through {@link Secrets#scrub}: drivers quote URLs in their messages.
 */
final class ErrorHandler implements IExecutionExceptionHandler {
  static final int EXIT_BAD_INPUT = 2;

  @Override
  public int handleExecutionException(Exception e, CommandLine cli, ParseResult parsed) {
    cli.getErr().println("once: " + Secrets.scrub(message(e)));
    if ("1".equals(System.getenv("ONCE_DEBUG"))) {
      StringWriter trace = new StringWriter();
      e.printStackTrace(new PrintWriter(trace));
      cli.getErr().print(Secrets.scrub(trace.toString()));
    }
    cli.getErr().flush();
    return EXIT_BAD_INPUT;
  }

  /**
   * A bad flag or value on the command line: picocli's one line (it names the option and the
   * value), a suggestion for a mistyped name, and where the help is — never the whole usage.
   */
  static final class BadArguments implements IParameterExceptionHandler {
    @Override
    public int handleParseException(ParameterException e, String[] args) {
      CommandLine cli = e.getCommandLine();
      PrintWriter err = cli.getErr();
      err.println("once: " + Secrets.scrub(e.getMessage()));
      UnmatchedArgumentException.printSuggestions(e, err);
      err.println("(see '" + cli.getCommandSpec().qualifiedName() + " --help')");
      err.flush();
      return EXIT_BAD_INPUT;
    }
  }

  static String message(Throwable e) {
    return UserError.messageOf(e);
  }
}
