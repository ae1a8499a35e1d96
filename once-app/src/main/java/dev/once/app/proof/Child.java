package dev.once.app.proof;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@code once} command in a process of its own, started with this JVM's java binary and class
 * path. Secrets (URLs with passwords) go in its environment, which only its owner can read, never
 * on its command line, which every user sees in {@code ps}. Its standard output is read for {@code
 * ready}, {@code stats} and {@code halt} lines; its standard error goes to a log file.
 */
final class Child {
  /**
   * The once command's main class, by name: {@code dev.once.app} wires every command, so naming the
   * class would make this package and it depend on each other (every verify test starts children).
   */
  static final String MAIN = "dev.once.app.Main";

  private final String name;
  private final Process process;
  private final AtomicReference<long[]> stats = new AtomicReference<>(new long[4]);
  private final AtomicReference<String> haltedAt = new AtomicReference<>();
  private final Thread reader;
  private volatile boolean ready;

  private Child(String name, Process process) {
    this.name = name;
    this.process = process;
    this.reader = new Thread(this::read, "once-verify-" + name);
    reader.setDaemon(true);
    reader.start();
  }

  static Child start(String name, Path log, List<String> args, Map<String, String> env) {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.add("-Xmx256m");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(MAIN);
    command.addAll(args);
    try {
      ProcessBuilder builder =
          new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
      builder.environment().putAll(env);
      return new Child(name, builder.start());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name + " (" + args + ")", e);
    }
  }

  private void read() {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        long[] s = WorkerStats.parse(line);
        if (s != null) {
          stats.set(s);
        } else if (line.startsWith(HaltListener.PREFIX)) {
          haltedAt.set(line.substring(HaltListener.PREFIX.length()).trim());
        } else if (line.equals(WorkerCommand.READY)) {
          ready = true;
        }
      }
    } catch (IOException e) {
      // the process died; what was read is what counts
    }
  }

  /** Tells the child to halt at {@code window} after letting {@code after} passes by. */
  void arm(String window, int after) {
    send("arm " + window + " " + after);
  }

  /** Tells the child not to halt after all. */
  void disarm() {
    send("disarm");
  }

  /** Tells a producer child it may produce orders up to {@code orderId}. */
  void allow(long orderId) {
    send("allow " + orderId);
  }

  private void send(String line) {
    try {
      OutputStream in = process.getOutputStream();
      in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      in.flush();
    } catch (IOException e) {
      // it died meanwhile: the caller sees it exit
    }
  }

  /** SIGKILL, and wait until the process is gone. */
  void kill() {
    process.destroyForcibly();
    awaitExit(10);
  }

  /** SIGTERM (a clean stop), SIGKILL after {@code seconds}. */
  void stop(long seconds) {
    process.destroy();
    if (!awaitExit(seconds)) {
      kill();
    }
  }

  private boolean awaitExit(long seconds) {
    try {
      boolean exited = process.waitFor(seconds, TimeUnit.SECONDS);
      if (exited) {
        reader.join(2_000); // the last lines it printed
      }
      return exited;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  String name() {
    return name;
  }

  /** False once the process has exited and its last output was read. */
  boolean alive() {
    if (process.isAlive()) {
      return true;
    }
    awaitExit(1);
    return false;
  }

  boolean ready() {
    return ready && process.isAlive();
  }

  int exitCode() {
    return process.exitValue();
  }

  /** The window the child halted itself at, or null. */
  String haltedAt() {
    return haltedAt.get();
  }

  /** The last stats it printed: received, redelivered, processed, duplicate. */
  long[] stats() {
    return stats.get();
  }
}
