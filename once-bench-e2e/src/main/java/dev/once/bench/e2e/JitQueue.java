package dev.once.bench.e2e;

import java.lang.management.ManagementFactory;
import javax.management.ObjectName;

/**
 * How many methods this JVM's JIT compilers are compiling or have queued, from HotSpot's {@code
 * Compiler.queue} diagnostic command (as {@code jcmd PID Compiler.queue} prints it); -1 when the
 * JVM cannot say.
 */
final class JitQueue {
  private JitQueue() {}

  /** Compilations in progress or queued now; -1 if unknown. */
  static int pending() {
    try {
      Object text =
          ManagementFactory.getPlatformMBeanServer()
              .invoke(
                  new ObjectName("com.sun.management:type=DiagnosticCommand"),
                  "compilerQueue",
                  new Object[] {null},
                  new String[] {String[].class.getName()});
      return count(String.valueOf(text));
    } catch (Exception | LinkageError e) {
      return -1;
    }
  }

  /**
   * The compilations in {@code Compiler.queue}'s text: the lines naming a method ("{@code ::name}")
   * under "Current compiles:" and under each "... compile queue:"; -1 if the text has neither
   * heading.
   */
  static int count(String text) {
    if (!text.contains("Current compiles:") && !text.contains("compile queue:")) {
      return -1;
    }
    int n = 0;
    for (String line : text.split("\n")) {
      if (line.contains("::")) {
        n++;
      }
    }
    return n;
  }
}
