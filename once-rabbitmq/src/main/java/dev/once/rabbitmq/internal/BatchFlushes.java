package dev.once.rabbitmq.internal;

import com.rabbitmq.client.WriteListener;
import com.rabbitmq.client.impl.AMQConnection;
import com.rabbitmq.client.impl.Frame;
import com.rabbitmq.client.impl.FrameHandler;
import com.rabbitmq.client.impl.FrameHandlerFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;

/**
 * A connection's frame handler that lets a thread publish a batch with one socket write. The client
 * flushes its buffered output after every command, so a batch of n messages costs n socket writes
 * and n holds of the connection's output lock (a write holds it while the kernel takes the bytes,
 * and the relays of a process share the publishing connection). Between {@link #hold()} and {@link
 * #release()} a thread's flushes are deferred: its frames go into the connection's buffer in the
 * order they always did, and {@link #release()} flushes each connection once. Only the holding
 * thread's flushes wait; any other thread's flush (a heartbeat, the connection's own answers,
 * another relay) still sends everything buffered, so nothing is ever held back longer than one
 * batch's publishing loop, and a full buffer still goes out when it fills.
 */
final class BatchFlushes implements FrameHandler {
  /** What the current thread holds: kept, not made anew for every batch. */
  private static final ThreadLocal<Held> held = ThreadLocal.withInitial(Held::new);

  /** Whether a thread holds its flushes, and the handlers it deferred one on, each once. */
  private static final class Held {
    boolean holding;
    final List<BatchFlushes> handlers = new ArrayList<>(1);

    void add(BatchFlushes h) {
      if (!handlers.contains(h)) {
        handlers.add(h);
      }
    }
  }

  private final FrameHandler delegate;

  private BatchFlushes(FrameHandler delegate) {
    this.delegate = delegate;
  }

  /** {@code inner}'s frame handlers, each wrapped. */
  static FrameHandlerFactory wrap(FrameHandlerFactory inner) {
    return (address, name) -> new BatchFlushes(inner.create(address, name));
  }

  /** From now on this thread's flushes wait for {@link #release()}. */
  static void hold() {
    held.get().holding = true;
  }

  /** Flushes, once each, the connections this thread wrote to since {@link #hold()}. */
  static void release() throws IOException {
    Held h = held.get();
    if (!h.holding) {
      return;
    }
    h.holding = false;
    IOException failed = null;
    try {
      for (BatchFlushes handler : h.handlers) {
        try {
          handler.delegate.flush(null);
        } catch (IOException e) {
          failed = e;
        }
      }
    } finally {
      h.handlers.clear();
    }
    if (failed != null) {
      throw failed;
    }
  }

  @Override
  public void flush(WriteListener listener) throws IOException {
    Held h = held.get();
    if (h.holding && listener == null) {
      h.add(this);
      return;
    }
    delegate.flush(listener);
  }

  @Override
  public void writeFrame(Frame frame) throws IOException {
    delegate.writeFrame(frame);
  }

  @Override
  public Frame readFrame() throws IOException {
    return delegate.readFrame();
  }

  @Override
  public boolean internalHearbeat() {
    return delegate.internalHearbeat();
  }

  @Override
  public void setTimeout(int timeoutMs) throws SocketException {
    delegate.setTimeout(timeoutMs);
  }

  @Override
  public int getTimeout() throws SocketException {
    return delegate.getTimeout();
  }

  @Override
  public void sendHeader() throws IOException {
    delegate.sendHeader();
  }

  @Override
  public void initialize(AMQConnection connection) {
    delegate.initialize(connection);
  }

  @Override
  public void startProcessing() {
    delegate.startProcessing();
  }

  @Override
  public void finishConnectionNegotiation() {
    delegate.finishConnectionNegotiation();
  }

  @Override
  public void setFrameMax(int frameMax) {
    delegate.setFrameMax(frameMax);
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public InetAddress getLocalAddress() {
    return delegate.getLocalAddress();
  }

  @Override
  public int getLocalPort() {
    return delegate.getLocalPort();
  }

  @Override
  public InetAddress getAddress() {
    return delegate.getAddress();
  }

  @Override
  public int getPort() {
    return delegate.getPort();
  }
}
