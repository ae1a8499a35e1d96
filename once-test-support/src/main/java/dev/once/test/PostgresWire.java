package dev.once.test;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A TCP proxy in front of PostgreSQL that reads what clients send (the frontend protocol) and
 * counts it, per transaction, as the server sees it: round trips (a {@code Sync} or a simple {@code
 * Query}, after which the client waits for the server's answer; not the simple {@code BEGIN} that
 * pgjdbc sends ahead of a transaction's first statement, in the same flight), statements, commits,
 * notifications ({@code pg_notify}, {@code NOTIFY}), settings ({@code SET}, {@code set_config}),
 * looks at {@code pg_locks} and the parameter values bound ({@code Bind}). Below JDBC, so nothing
 * the driver does on its own (a {@code BEGIN}, a validation query, a second round trip for a
 * describe) escapes it. Statements prepared by name are counted at each execution ({@code Bind}),
 * by the text they were prepared with.
 *
 * <p>A transaction ({@code BEGIN} … {@code COMMIT}/{@code ROLLBACK}) counts as {@link #marked} if
 * one of its statements matches the marker (a test's business table): the transactions the test
 * ran. Everything else — other transactions, statements in auto-commit — counts as {@link #other}.
 * An empty query (a pool's validation) is counted apart, in {@link #checks}.
 */
public final class PostgresWire implements AutoCloseable {
  /** What one kind of traffic cost. */
  public record Cost(
      long transactions,
      long roundTrips,
      long statements,
      long commits,
      long notifies,
      long settings,
      long looks,
      long parameters) {
    static final Cost NONE = new Cost(0, 0, 0, 0, 0, 0, 0, 0);

    Cost plus(Cost o) {
      return new Cost(
          transactions + o.transactions,
          roundTrips + o.roundTrips,
          statements + o.statements,
          commits + o.commits,
          notifies + o.notifies,
          settings + o.settings,
          looks + o.looks,
          parameters + o.parameters);
    }

    /** Per transaction, rounded down (call it on a cost of whole transactions). */
    public Cost perTransaction() {
      long n = Math.max(1, transactions);
      return new Cost(
          1,
          roundTrips / n,
          statements / n,
          commits / n,
          notifies / n,
          settings / n,
          looks / n,
          parameters / n);
    }
  }

  private final String host;
  private final int port;
  private final Predicate<String> marker;
  private final ServerSocket server;
  private Cost marked = Cost.NONE;
  private Cost other = Cost.NONE;
  private long checks;
  private volatile boolean closed;

  private PostgresWire(String host, int port, Predicate<String> marker) throws IOException {
    this.host = host;
    this.port = port;
    this.marker = marker;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "pg-wire-" + server.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** A proxy to the server of {@code db}, marking transactions with a statement containing it. */
  public static PostgresWire to(TestDatabase db, String marker) {
    try {
      return new PostgresWire(db.host(), db.port(), sql -> sql.contains(marker));
    } catch (IOException e) {
      throw new UncheckedIOException("postgres wire: no free port", e);
    }
  }

  /** The port clients connect to (on 127.0.0.1); see {@link TestDatabase#newPoolVia}. */
  public int port() {
    return server.getLocalPort();
  }

  /** The transactions that ran a statement matching the marker, committed or rolled back. */
  public synchronized Cost marked() {
    return marked;
  }

  /** Every other transaction and auto-commit statement. */
  public synchronized Cost other() {
    return other;
  }

  /** Empty queries (a pool's validation of a connection). */
  public synchronized long checks() {
    return checks;
  }

  /** Forgets what was counted so far (a transaction open now is counted when it ends). */
  public synchronized void reset() {
    marked = Cost.NONE;
    other = Cost.NONE;
    checks = 0;
  }

  private synchronized void add(boolean isMarked, Cost c) {
    if (isMarked) {
      marked = marked.plus(c);
    } else {
      other = other.plus(c);
    }
  }

  private synchronized void check() {
    checks++;
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket(host, port);
        client.setTcpNoDelay(true);
        upstream.setTcpNoDelay(true);
        pump(upstream.getInputStream(), client.getOutputStream(), "down");
        Thread up = new Thread(() -> read(client, upstream), "pg-wire-up-" + client.getPort());
        up.setDaemon(true);
        up.start();
      } catch (IOException e) {
        if (!closed) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }

  /** Forwards the server's bytes as they come. */
  private static void pump(InputStream in, OutputStream out, String name) {
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[16384];
              try (in;
                  out) {
                for (int n; (n = in.read(buf)) >= 0; ) {
                  out.write(buf, 0, n);
                  out.flush();
                }
              } catch (IOException e) {
                // either side closed
              }
            },
            "pg-wire-" + name);
    t.setDaemon(true);
    t.start();
  }

  /** Forwards the client's messages one by one, counting them. */
  private void read(Socket client, Socket upstream) {
    Session session = new Session();
    try (DataInputStream in = new DataInputStream(client.getInputStream());
        OutputStream out = upstream.getOutputStream()) {
      boolean started = false;
      while (true) {
        int type = started ? in.readUnsignedByte() : -1;
        int length = in.readInt();
        byte[] body = new byte[length - 4];
        in.readFully(body);
        if (type < 0) {
          started = body[0] == 0 && body[1] == 3; // protocol 3.0; an SSL or GSS request first
          out.write(intBytes(length));
        } else {
          out.write(type);
          out.write(intBytes(length));
          session.on((char) type, body);
        }
        out.write(body);
        out.flush();
      }
    } catch (EOFException e) {
      // the client closed
    } catch (IOException e) {
      // either side closed
    }
  }

  private static byte[] intBytes(int v) {
    return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
  }

  /** One connection's statements by name and its open transaction. */
  private final class Session {
    private final Map<String, String> prepared = new HashMap<>();
    private boolean inTransaction;
    private boolean ending;
    private boolean committed;
    private boolean isMarked;
    private long roundTrips;
    private long statements;
    private long notifies;
    private long settings;
    private long looks;
    private long parameters;

    void on(char type, byte[] body) {
      switch (type) {
        case 'P' -> {
          String[] s = strings(body, 2);
          prepared.put(s[0], s[1]);
        }
        case 'B' -> {
          parameters += boundParameters(body);
          executed(prepared.getOrDefault(strings(body, 2)[1], ""));
        }
        case 'Q' -> {
          String sql = strings(body, 1)[0];
          if (sql.isBlank()) {
            check();
            return;
          }
          executed(sql);
          if (!inTransaction || !sql.strip().equalsIgnoreCase("BEGIN")) {
            roundTrip(); // pgjdbc sends its BEGIN ahead of the first statement, not waiting
          }
        }
        case 'S' -> roundTrip();
        default -> {}
      }
    }

    private void executed(String sql) {
      String s = sql.strip().toUpperCase(Locale.ROOT);
      if (s.isEmpty()) {
        check();
        return;
      }
      if (s.startsWith("BEGIN")) {
        inTransaction = true;
        return;
      }
      if (s.startsWith("COMMIT") || s.startsWith("ROLLBACK")) {
        ending = true;
        committed = s.startsWith("COMMIT");
        return;
      }
      isMarked |= inTransaction && marker.test(sql);
      if (s.contains("PG_NOTIFY") || s.startsWith("NOTIFY")) {
        notifies++;
      } else if (s.startsWith("SET ") || s.contains("SET_CONFIG")) {
        settings++;
      } else if (s.contains("PG_LOCKS")) {
        looks++;
      } else {
        statements++;
      }
    }

    /** The end of a round trip: a transaction that ended in it is counted now. */
    private void roundTrip() {
      roundTrips++;
      if (inTransaction && !ending) {
        return;
      }
      add(
          isMarked,
          new Cost(
              inTransaction ? 1 : 0,
              roundTrips,
              statements,
              committed ? 1 : 0,
              notifies,
              settings,
              looks,
              parameters));
      inTransaction = ending = committed = isMarked = false;
      roundTrips = statements = notifies = settings = looks = parameters = 0;
    }
  }

  /**
   * The values a {@code Bind} message carries: after the portal's and the statement's names, the
   * parameters' format codes (a count, then one int16 each), then the parameters' count.
   */
  private static int boundParameters(byte[] body) {
    int at = 0;
    for (int names = 0; names < 2; names++) {
      while (body[at] != 0) {
        at++;
      }
      at++;
    }
    int formats = int16(body, at);
    return int16(body, at + 2 + 2 * formats);
  }

  private static int int16(byte[] b, int at) {
    return ((b[at] & 0xff) << 8) | (b[at + 1] & 0xff);
  }

  /** The first {@code n} NUL-terminated strings of a message body. */
  private static String[] strings(byte[] body, int n) {
    String[] out = new String[n];
    int from = 0;
    for (int i = 0; i < n; i++) {
      int end = from;
      while (end < body.length && body[end] != 0) {
        end++;
      }
      out[i] = new String(body, from, end - from, StandardCharsets.UTF_8);
      from = end + 1;
    }
    return out;
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // closing
    }
  }
}
