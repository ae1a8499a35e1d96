package dev.once.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy of one test, between a client (a pool, a broker client) and one server, that breaks
 * the network the way it breaks in production without touching the server, which other tests share:
 *
 * <ul>
 *   <li>{@link #blackhole()} — every connection open now goes silent for good, in both directions,
 *       and neither side is told: no FIN, no RST. Bytes that arrive are read and dropped, so writes
 *       succeed and every read waits (a server that failed over, a NAT or firewall that dropped its
 *       state, a cable pulled). The server keeps its session (and its locks) as it would behind a
 *       dropped NAT entry. Connections opened afterwards are forwarded as usual.
 *   <li>{@link #partition()} / {@link #heal()} — while partitioned, existing connections are silent
 *       as with {@code blackhole()}, and new ones are accepted but never forwarded (they stay
 *       silent after the heal, as a half-open connection does).
 *   <li>{@link #cut()} — every open connection is reset on both sides (RST), as a broker or a
 *       database restart or an idle-connection killer does.
 *   <li>{@link #cutWhenClientSends(byte[], int)} — the next reads from a client that contain a
 *       given byte sequence (a protocol's publish command) are dropped and their connection reset
 *       on both sides: a connection lost in the middle of a publish, before the server saw it.
 *   <li>{@link #refuse()} / {@link #restore()} — every open connection is reset and the port stops
 *       listening, so that connecting is refused (a server that is down or restarting, its port
 *       closed), until the proxy listens on the same port again.
 * </ul>
 *
 * JDK only, one pair of threads per connection; listens on 127.0.0.1 on a free port. Close it to
 * close every connection.
 */
public final class TcpProxy implements AutoCloseable {
  private final InetSocketAddress target;
  private final int port;
  private volatile ServerSocket server;
  private final List<Link> links = new CopyOnWriteArrayList<>();
  private final AtomicLong dropped = new AtomicLong();
  private final java.util.concurrent.atomic.AtomicInteger armedCuts =
      new java.util.concurrent.atomic.AtomicInteger();
  private final java.util.concurrent.atomic.AtomicInteger armedCutsDone =
      new java.util.concurrent.atomic.AtomicInteger();
  private volatile byte[] cutPattern;
  private volatile boolean partitioned;
  private volatile boolean refusing;
  private volatile boolean closed;

  private TcpProxy(InetSocketAddress target) throws IOException {
    this.target = target;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.port = server.getLocalPort();
    listen(server);
  }

  private void listen(ServerSocket listening) {
    Thread acceptor = new Thread(() -> accept(listening), "tcp-proxy-" + port);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** A proxy to {@code host}:{@code port}, forwarding from now on. */
  public static TcpProxy to(String host, int port) {
    try {
      return new TcpProxy(new InetSocketAddress(host, port));
    } catch (IOException e) {
      throw new UncheckedIOException("tcp proxy: no free port", e);
    }
  }

  /** The port clients connect to (on 127.0.0.1). */
  public int port() {
    return port;
  }

  /**
   * Silences every connection open now, for good, telling neither side; new connections are
   * forwarded. Returns how many connections went silent.
   */
  public int blackhole() {
    int n = 0;
    for (Link l : links) {
      if (!l.silent) {
        l.silent = true;
        n++;
      }
    }
    return n;
  }

  /** Silences every connection open now and every new one until {@link #heal()}. */
  public void partition() {
    partitioned = true;
    blackhole();
  }

  /** New connections are forwarded again; those that went silent stay silent. */
  public void heal() {
    partitioned = false;
  }

  /** Resets every open connection on both sides; returns how many. */
  public int cut() {
    int n = 0;
    for (Link l : links) {
      l.reset();
      n++;
    }
    return n;
  }

  /**
   * Resets every open connection on both sides and stops listening: a client's connect is refused
   * (RST) until {@link #restore()}. Returns how many connections were reset.
   */
  public synchronized int refuse() {
    refusing = true;
    closeQuietly(server);
    return cut();
  }

  /**
   * Listens on the same port again after {@link #refuse()}; new connections are forwarded. Fails if
   * the port was taken meanwhile (tried for up to 10 s).
   */
  public synchronized void restore() {
    if (!refusing || closed) {
      return;
    }
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (true) {
      try {
        ServerSocket again = new ServerSocket();
        again.setReuseAddress(true);
        try {
          again.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
        } catch (IOException e) {
          closeQuietly(again);
          throw e;
        }
        server = again;
        refusing = false;
        listen(again);
        return;
      } catch (IOException e) {
        if (System.nanoTime() > deadline) {
          throw new UncheckedIOException("tcp proxy: port " + port + " taken while refusing", e);
        }
        try {
          Thread.sleep(50);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new UncheckedIOException("tcp proxy: interrupted restoring port " + port, e);
        }
      }
    }
  }

  private static void closeQuietly(ServerSocket s) {
    try {
      s.close();
    } catch (IOException e) {
      // nothing to do
    }
  }

  /**
   * Arms {@code times} cuts: each of the next {@code times} reads from a client that contain {@code
   * pattern} is dropped (the server sees none of it) and its connection reset on both sides. Adds
   * to the cuts still armed; the pattern replaces the earlier one.
   */
  public void cutWhenClientSends(byte[] pattern, int times) {
    cutPattern = pattern.clone();
    armedCuts.addAndGet(times);
  }

  /** How many cuts {@link #cutWhenClientSends} made so far. */
  public int armedCutsDone() {
    return armedCutsDone.get();
  }

  /** Whether {@code n} bytes of {@code buf} from a client take one of the armed cuts. */
  private boolean takesArmedCut(byte[] buf, int n) {
    byte[] pattern = cutPattern;
    if (pattern == null || armedCuts.get() <= 0 || !contains(buf, n, pattern)) {
      return false;
    }
    while (true) {
      int left = armedCuts.get();
      if (left <= 0) {
        return false;
      }
      if (armedCuts.compareAndSet(left, left - 1)) {
        armedCutsDone.incrementAndGet();
        return true;
      }
    }
  }

  private static boolean contains(byte[] buf, int n, byte[] pattern) {
    outer:
    for (int i = 0; i + pattern.length <= n; i++) {
      for (int j = 0; j < pattern.length; j++) {
        if (buf[i + j] != pattern[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  /** Connections open through the proxy now, silent ones included. */
  public int connections() {
    return links.size();
  }

  /** Bytes that reached the proxy on silent connections and were dropped, from either side. */
  public long droppedBytes() {
    return dropped.get();
  }

  private void accept(ServerSocket listening) {
    while (!closed) {
      Socket client;
      try {
        client = listening.accept();
      } catch (IOException e) {
        return; // closed, or refusing
      }
      Link link = new Link(client);
      links.add(link);
      link.silent = partitioned;
      if (refusing || closed) { // accepted as the port closed: refused after all
        link.reset();
        return;
      }
      link.start();
    }
  }

  /** One client connection and its connection to the target. */
  private final class Link {
    private final Socket client;
    private Socket upstream;
    private final java.util.concurrent.atomic.AtomicInteger ended =
        new java.util.concurrent.atomic.AtomicInteger();
    volatile boolean silent;

    Link(Socket client) {
      this.client = client;
    }

    void start() {
      Thread t =
          new Thread(this::open, "tcp-proxy-" + port() + "-" + client.getPort() + "-connect");
      t.setDaemon(true);
      t.start();
    }

    private void open() {
      try {
        Socket up = new Socket();
        up.connect(target, 10_000);
        synchronized (this) {
          upstream = up;
        }
        Thread back = new Thread(() -> pump(up, client), "tcp-proxy-" + client.getPort() + "-in");
        back.setDaemon(true);
        back.start();
        pump(client, up);
      } catch (IOException e) {
        reset();
      }
    }

    /**
     * Copies {@code from} to {@code to} until {@code from} ends, then passes the end on; drops what
     * arrives while silent, and then tells {@code to} nothing.
     */
    private void pump(Socket from, Socket to) {
      byte[] buf = new byte[16 * 1024];
      try {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        int n;
        while ((n = in.read(buf)) >= 0) {
          if (silent) {
            dropped.addAndGet(n);
            continue;
          }
          if (from == client && takesArmedCut(buf, n)) {
            reset();
            return;
          }
          out.write(buf, 0, n);
          out.flush();
        }
        if (!silent) {
          to.shutdownOutput(); // a clean close passes through
        }
      } catch (IOException e) {
        if (!silent) {
          reset();
        }
        return;
      }
      if (!silent && ended.incrementAndGet() == 2) {
        close(client);
        close(to == client ? from : to);
        links.remove(this);
      }
    }

    /** RST on both sides. */
    void reset() {
      links.remove(this);
      Socket up;
      synchronized (this) {
        up = upstream;
      }
      abort(client);
      if (up != null) {
        abort(up);
      }
    }

    private void abort(Socket s) {
      try {
        s.setSoLinger(true, 0);
      } catch (SocketException e) {
        // already closed
      }
      close(s);
    }

    private void close(Socket s) {
      try {
        s.close();
      } catch (IOException e) {
        // nothing to do
      }
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    closeQuietly(server);
    for (Link l : links) {
      l.reset();
    }
  }
}
