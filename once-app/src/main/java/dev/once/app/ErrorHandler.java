package dev.once.app;

import dev.once.OnceException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Turns failures into one line naming the problem and exit code 2; the stack trace only with {@code
 * ONCE_DEBUG=1}.
 */
final class ErrorHandler implements IExecutionExceptionHandler {
  static final int EXIT_BAD_INPUT = 2;

  @Override
  public int handleExecutionException(Exception e, CommandLine cli, ParseResult parsed) {
    cli.getErr().println("once: " + message(e));
    if ("1".equals(System.getenv("ONCE_DEBUG"))) {
      e.printStackTrace(cli.getErr());
    }
    return EXIT_BAD_INPUT;
  }

  static String message(Throwable e) {
    if (e instanceof OnceException || e instanceof UserError) {
      return e.getMessage();
    }
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String text = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    return e.getMessage() != null && !e.getMessage().equals(text)
        ? e.getMessage() + ": " + text
        : text;
  }
}
