package dev.once.app;

import dev.once.spi.Transport;
import dev.once.tablequeue.TableQueueTransport;
import java.time.Duration;
import javax.sql.DataSource;
import picocli.CommandLine.Option;

/** {@code --transport} and its settings, shared by the commands that move events. */
public final class TransportOptions {

  @Option(
      names = "--transport",
      defaultValue = "table",
      description = "table (a queue in the same PostgreSQL; default) or rabbitmq.")
  String transport;

  public String name() {
    return transport;
  }

  /**
   * Opens the chosen transport. {@code visibilityTimeout} is how long a crashed worker's deliveries
   * stay invisible on the table queue.
   */
  public Transport open(DataSource dataSource, Duration visibilityTimeout) {
    return switch (transport) {
      case "table" ->
          TableQueueTransport.builder(dataSource).visibilityTimeout(visibilityTimeout).build();
      default ->
          throw new UserError("--transport must be 'table' or 'rabbitmq', was '" + transport + "'");
    };
  }
}
