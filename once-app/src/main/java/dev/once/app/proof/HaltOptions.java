package dev.once.app.proof;

import dev.once.scenario.ProductionGate;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine.Option;

/**
 * The hidden options with which {@code once verify} makes a child die at a crash window: at start
 * ({@code --halt-at}), or later by a line {@code arm <window> <after>} on its standard input
 * ({@code --control-stdin}). With {@code --control-stdin}, a producer produces only what {@code
 * allow <order id>} lines let through.
 */
final class HaltOptions {
  @Option(
      names = "--halt-at",
      hidden = true,
      description =
          "Halt this process (exit 137) at this crash window, e.g. consumer.after-marker.")
  String window;

  @Option(
      names = "--halt-after",
      hidden = true,
      defaultValue = "0",
      description = "Passes through the window to let by before halting.")
  int after;

  @Option(
      names = "--control-stdin",
      hidden = true,
      description = "Read 'arm <window> <after>' lines from standard input.")
  boolean controlStdin;

  /** Tells the controlling process (with {@code --control-stdin}) that commands are welcome now. */
  void ready(PrintStream out) {
    if (controlStdin) {
      out.println(WorkerCommand.READY);
      out.flush();
    }
  }

  /** The halting listener, armed as the options say. */
  HaltListener listener(PrintStream out) {
    return listener(out, ProductionGate.open());
  }

  /** As above; {@code allow <order id>} lines on standard input open {@code gate} further. */
  HaltListener listener(PrintStream out, ProductionGate gate) {
    HaltListener listener = new HaltListener(out);
    if (window != null) {
      listener.arm(HaltListener.window(window), after);
    }
    if (controlStdin) {
      readCommands(listener, gate);
    }
    return listener;
  }

  private static void readCommands(HaltListener listener, ProductionGate gate) {
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                  String[] parts = line.trim().split(" ");
                  if (parts.length == 3 && parts[0].equals("arm")) {
                    listener.arm(HaltListener.window(parts[1]), Integer.parseInt(parts[2]));
                  } else if (parts.length == 1 && parts[0].equals("disarm")) {
                    listener.disarm();
                  } else if (parts.length == 2 && parts[0].equals("allow")) {
                    gate.allow(Long.parseLong(parts[1]));
                  }
                }
              } catch (IOException e) {
                // the parent went away; nothing more will be armed
              }
            },
            "once-control");
    t.setDaemon(true);
    t.start();
  }
}
