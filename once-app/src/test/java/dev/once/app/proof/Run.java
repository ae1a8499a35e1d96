package dev.once.app.proof;

import dev.once.app.Main;
import java.io.PrintWriter;
import java.io.StringWriter;

/** One {@code once} command run in this JVM: its exit code and what it printed. */
record Run(int exitCode, String out, String err) {

  static Run of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Run(code, out.toString(), err.toString());
  }

  @Override
  public String toString() {
    return "exit " + exitCode + "\n--- out\n" + out + "\n--- err\n" + err;
  }
}
