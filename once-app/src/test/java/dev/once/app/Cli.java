package dev.once.app;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/** Runs {@code once} with arguments as a user types them and keeps what it printed. */
public final class Cli {
  public record Run(int exit, String out, String err) {
    /** stderr's lines, without blank ones. */
    public java.util.List<String> errLines() {
      return err.lines().filter(l -> !l.isBlank()).toList();
    }

    /** Asserts a refused command: a non-zero exit and one line on stderr that says {@code why}. */
    public void assertRefusedInOneLine(String why) {
      org.assertj.core.api.Assertions.assertThat(exit).as(err).isNotZero();
      org.assertj.core.api.Assertions.assertThat(errLines()).hasSize(1);
      org.assertj.core.api.Assertions.assertThat(errLines().get(0)).contains(why);
    }
  }

  private Cli() {}

  public static synchronized Run run(String... args) {
    PrintStream oldOut = System.out;
    PrintStream oldErr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
      PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
      System.setOut(o);
      System.setErr(e);
      int exit = Main.run(new PrintWriter(o, true), new PrintWriter(e, true), args);
      return new Run(
          exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(oldOut);
      System.setErr(oldErr);
    }
  }
}
