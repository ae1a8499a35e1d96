package dev.once.app.ops;

import dev.once.DeadLetters;
import dev.once.app.common.UserError;
import dev.once.dashboard.Dashboard;
import dev.once.dashboard.DashboardListener;
import dev.once.scenario.WarehouseTables;
import java.io.PrintStream;
import javax.sql.DataSource;
import picocli.CommandLine.Option;

/** {@code --dashboard} for the commands that run a pipeline ({@code demo}, {@code worker}). */
public final class DashboardOptions {
  @Option(
      names = "--dashboard",
      description = "Serve the dashboard while running (see --dashboard-port, --dashboard-bind).")
  boolean enabled;

  @Option(
      names = "--dashboard-port",
      defaultValue = "8080",
      description = "Port of the dashboard (default ${DEFAULT-VALUE}; 0 picks a free one).")
  int port;

  @Option(
      names = "--dashboard-bind",
      defaultValue = "127.0.0.1",
      description = "Address the dashboard listens on (default ${DEFAULT-VALUE}: this machine).")
  String bind;

  private final DashboardListener listener = new DashboardListener();

  public boolean enabled() {
    return enabled;
  }

  /** Give to the pipeline's Once: the dashboard's rates are then exact, duplicates included. */
  public DashboardListener listener() {
    return listener;
  }

  /** Checks the options before anything starts. */
  public void check() {
    if (enabled && (port < 0 || port > 65535)) {
      throw new UserError("--dashboard-port must be between 0 and 65535, was " + port);
    }
  }

  /**
   * Starts the dashboard if asked (else returns null) and prints where to open it; {@code
   * deadLetters} is the running {@link dev.once.Once}'s.
   */
  public Dashboard start(
      DataSource dataSource,
      DeadLetters deadLetters,
      dev.once.spi.Transport transport,
      PrintStream out) {
    if (!enabled) {
      return null;
    }
    return DashboardCommand.start(
        Dashboard.builder(dataSource, deadLetters)
            .listener(listener)
            .transport(transport, WarehouseTables.CONSUMER_DESTINATIONS)
            .bind(bind)
            .port(port)
            .actor(DeadLetterResolutions.defaultActor() + " (dashboard)"),
        out);
  }

  static void checkPort(int port) {
    if (port < 0 || port > 65535) {
      throw new UserError("--port must be between 0 and 65535, was " + port);
    }
  }
}
