package dev.once.rabbitmq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.TopologyRecoveryException;
import com.rabbitmq.client.impl.AMQImpl;
import dev.once.test.LogLines;
import java.io.IOException;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

/**
 * How the client's failures to recover a consumer are logged, by cause: the connection cut again (a
 * try of its outage), the channel closed by this process meanwhile (a worker's receiver closed
 * under the recovery: nothing to recover, nothing to report), or a real channel error on a working
 * connection (an ERROR, as the client logs it). The first two were the client's ERROR with a trace
 * ({@code once bench faults} on RabbitMQ met the second at a connection cut).
 */
class ClientOutagesTest {
  private final ClientOutages outages = new ClientOutages("amqp://guest@127.0.0.1:5672/test");

  @Test
  void aConsumerRecoveryCutByTheConnectionIsATryOfTheOutage() {
    try (LogLines log = LogLines.capture()) {
      outages.handleTopologyRecoveryException(
          connection(false), null, failed(new ShutdownSignalException(true, false, null, null)));
      assertThat(log.matching(" ERROR ")).isEmpty();
      assertThat(log.matching(" WARN "))
          .singleElement()
          .satisfies(l -> assertThat(l).contains("once-consumer", "lost again"));
    }
  }

  @Test
  void aConsumerRecoveryOfAChannelThisProcessClosedIsNoError() {
    try (LogLines log = LogLines.capture()) {
      outages.handleTopologyRecoveryException(
          connection(true), null, failed(new ShutdownSignalException(false, true, null, null)));
      assertThat(log.matching(" ERROR ")).isEmpty();
      assertThat(log.matching(" WARN ")).isEmpty();
    }
  }

  @Test
  void aConsumerThatCannotBeRecoveredOnAWorkingConnectionIsStillAnError() {
    AMQImpl.Channel.Close notFound = new AMQImpl.Channel.Close(404, "NOT_FOUND - no queue", 60, 20);
    try (LogLines log = LogLines.capture()) {
      outages.handleTopologyRecoveryException(
          connection(true),
          null,
          failed(new ShutdownSignalException(false, false, notFound, null)));
      assertThat(log.matching(" ERROR ")).hasSize(1);
    }
  }

  private static TopologyRecoveryException failed(ShutdownSignalException cause) {
    return new TopologyRecoveryException(
        "Caught an exception while recovering consumer amq.ctag-1", new IOException(cause));
  }

  /** A connection named once-consumer, open or not; nothing else is asked of it. */
  private static Connection connection(boolean open) {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "isOpen" -> open;
                  case "getClientProvidedName" -> "once-consumer";
                  case "hashCode" -> System.identityHashCode(proxy);
                  case "equals" -> proxy == args[0];
                  case "toString" -> "connection";
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }
}
