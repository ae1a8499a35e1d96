package dev.once.rabbitmq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.once.Event;
import dev.once.EventId;
import dev.once.rabbitmq.Broker;
import dev.once.rabbitmq.RabbitConfig;
import dev.once.rabbitmq.RabbitTransport;
import dev.once.spi.PublishResult;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.SocketFactory;
import org.junit.jupiter.api.Test;

/**
 * What a relay batch costs the publishing connection's socket: one write for the whole batch, not
 * one a message (round 19 of docs/PERFORMANCE.md: the client flushes after every command, and each
 * flush is a system call made while holding the connection's output lock that the relays share).
 * Counted on the socket itself, through the transport's own connection factory.
 */
class BatchFlushesTest {
  private static final int BATCH = 40;
  private static final int BUFFER = 8192;

  @Test
  void aBatchGoesToTheSocketInOneWrite() throws Exception {
    Broker.require();
    RabbitConfig config =
        RabbitTransport.builder().uri("amqp://guest:guest@127.0.0.1:5672/").config();
    ConnectionFactory factory = Connections.factory(config, new ClientOutages(config.safeUri()));
    AtomicInteger writes = new AtomicInteger();
    AtomicLong bytes = new AtomicLong();
    factory.setSocketFactory(new CountingSockets(writes, bytes));
    factory.setRequestedHeartbeat(0); // no heartbeat frames in the count
    try (Connection connection = factory.newConnection("batch-flushes-test")) {
      Channel admin = connection.createChannel();
      String queue = admin.queueDeclare().getQueue(); // exclusive, deleted with the connection
      ConfirmChannel channel = new ConfirmChannel(connection.createChannel());
      List<Event> batch = new ArrayList<>();
      for (int i = 0; i < BATCH; i++) {
        batch.add(Event.of(EventId.of("flush", i), "flush", "k" + i, "Flushed", "{}"));
      }
      List<String> exchanges = Collections.nCopies(BATCH, "");
      List<String> queues = Collections.nCopies(BATCH, queue);
      MessageCodec codec = new MessageCodec(config.contentType());

      int before = writes.get();
      long bytesBefore = bytes.get();
      PublishResult result =
          channel.publish(batch, exchanges, queues, codec, Duration.ofSeconds(10));
      int during = writes.get() - before;
      long sent = bytes.get() - bytesBefore;

      assertThat(result.failures()).isEmpty();
      assertThat(admin.messageCount(queue)).isEqualTo(BATCH);
      // the client's output buffer (8 KiB) goes out whenever it fills; beyond that, one flush
      assertThat(during)
          .as("socket writes for a batch of %d messages, %d bytes", BATCH, sent)
          .isLessThanOrEqualTo((int) (sent / BUFFER) + 1);
      channel.close();
    }
  }

  /** Plain sockets whose output counts the writes that reach the socket. */
  private static final class CountingSockets extends SocketFactory {
    private final AtomicInteger writes;
    private final AtomicLong bytes;

    CountingSockets(AtomicInteger writes, AtomicLong bytes) {
      this.writes = writes;
      this.bytes = bytes;
    }

    @Override
    public Socket createSocket() {
      return new Socket() {
        @Override
        public OutputStream getOutputStream() throws IOException {
          return new FilterOutputStream(super.getOutputStream()) {
            @Override
            public void write(byte[] b, int off, int len) throws IOException {
              writes.incrementAndGet();
              bytes.addAndGet(len);
              out.write(b, off, len);
            }
          };
        }
      };
    }

    @Override
    public Socket createSocket(String host, int port) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Socket createSocket(String host, int port, java.net.InetAddress local, int localPort) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Socket createSocket(java.net.InetAddress host, int port) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Socket createSocket(
        java.net.InetAddress address, int port, java.net.InetAddress local, int localPort) {
      throw new UnsupportedOperationException();
    }
  }
}
