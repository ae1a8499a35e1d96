package dev.once.testkit;

import dev.once.OnceListener;
import dev.once.ReceivedEvent;
import dev.once.spi.Delivery;
import dev.once.spi.ForwardingTransport;
import dev.once.spi.QueueOrder;
import dev.once.spi.Receiver;
import dev.once.spi.Transport;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntPredicate;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/**
 * Faults and probes for an ordered consumer on a broker transport ({@link KeyOrderRig}), whose
 * receiver writes what it receives into the key lane in Once's database and acknowledges it to the
 * broker after that commit: crashes on either side of that commit, receivers to wrap, and a count
 * of what the lane's writes cost the database.
 */
public final class LaneFaults {
  private LaneFaults() {}

  /**
   * Every 13th committed lane batch's worker dies before its ack (the rows come back: DUPLICATE),
   * every 29th handled event's worker dies before its batch commits (it rolls back and comes back).
   */
  public static OnceListener drainCrashes() {
    AtomicInteger batches = new AtomicInteger();
    AtomicInteger handled = new AtomicInteger();
    return new OnceListener() {
      @Override
      public void handled(ReceivedEvent event) {
        if (handled.incrementAndGet() % 29 == 0) {
          throw new Error("simulated crash after the handler, before commit");
        }
      }

      @Override
      public void committed(List<ReceivedEvent> events) {
        if (batches.incrementAndGet() % 13 == 0) {
          throw new Error("simulated crash after commit, before ack");
        }
      }
    };
  }

  /**
   * {@code r}, whose process dies once in the broker ack of each event named in {@code eventIds}
   * (removed as it dies): after the lane's commit.
   */
  public static Receiver dyingOnAckOf(Receiver r, Set<String> eventIds) {
    return new Passing(r) {
      @Override
      public void ack(List<Delivery> deliveries) {
        for (Delivery d : deliveries) {
          if (!d.isMalformed() && eventIds.remove(d.event().id().value())) {
            throw new Error("simulated crash after the lane's commit, before the broker's ack");
          }
        }
        super.ack(deliveries);
      }
    };
  }

  /**
   * {@code dataSource}, whose process dies at the commit of a lane write (an insert into the lane)
   * when {@code dies} says so, given the lane write's number: the write rolls back.
   */
  public static DataSource dyingAtLaneCommit(DataSource dataSource, IntPredicate dies) {
    AtomicInteger writes = new AtomicInteger();
    return connections(
        dataSource,
        c -> {
          AtomicBoolean laneWrite = new AtomicBoolean();
          return proxy(
              Connection.class,
              (cp, cm, cargs) -> {
                if (cm.getName().equals("prepareStatement") && isLaneWrite(cargs[0])) {
                  laneWrite.set(true);
                }
                if (cm.getName().equals("commit")
                    && laneWrite.getAndSet(false)
                    && dies.test(writes.incrementAndGet())) {
                  throw new Error("simulated crash before the lane's commit");
                }
                return invoke(cm, c, cargs);
              });
        });
  }

  /**
   * Whether {@code sql} is the receiver's insert into the lane (the group's binding in key order).
   */
  static boolean isLaneWrite(Object sql) {
    return sql instanceof String s
        && s.contains("INSERT INTO once_queue")
        && s.contains("b.in_key_order");
  }

  /**
   * What the receivers took from the broker and what the connections that wrote into the lane did,
   * in total: each such connection is counted when it is closed (given back to the pool).
   */
  public static final class LaneWrites {
    private final AtomicLong batches = new AtomicLong();
    private final AtomicLong received = new AtomicLong();
    private final AtomicLong transactions = new AtomicLong();
    private final AtomicLong statements = new AtomicLong();
    private final AtomicLong executions = new AtomicLong();
    private final AtomicLong rows = new AtomicLong();
    private final AtomicLong commits = new AtomicLong();

    /** Polls that brought deliveries, of receivers wrapped by {@link #receiving}. */
    public long batchesReceived() {
      return batches.get();
    }

    /** Deliveries those polls brought. */
    public long received() {
      return received.get();
    }

    /** {@code r}, counting here each poll that brings deliveries and what it brings. */
    public Receiver receiving(Receiver r) {
      return new Passing(r) {
        @Override
        public List<Delivery> poll(int max, Duration wait, Duration linger)
            throws InterruptedException {
          List<Delivery> got = super.poll(max, wait, linger);
          if (!got.isEmpty()) {
            batches.incrementAndGet();
            received.addAndGet(got.size());
          }
          return got;
        }
      };
    }

    /** Connections that wrote into the lane, each a transaction. */
    public long transactions() {
      return transactions.get();
    }

    /** Statements those connections prepared or created. */
    public long statements() {
      return statements.get();
    }

    /** Statements they sent (a JDBC batch is sent once). */
    public long executions() {
      return executions.get();
    }

    /** Rows they added to JDBC batches. */
    public long rows() {
      return rows.get();
    }

    /** Commits they made. */
    public long commits() {
      return commits.get();
    }

    /** {@code dataSource}, counting here what its connections that write into the lane do. */
    public DataSource counting(DataSource dataSource) {
      return connections(dataSource, this::counting);
    }

    @Override
    public String toString() {
      return "received "
          + received
          + " in "
          + batches
          + " batches; lane: "
          + transactions
          + " transactions, "
          + statements
          + " statements, "
          + executions
          + " executions, "
          + rows
          + " rows, "
          + commits
          + " commits";
    }

    private Connection counting(Connection c) {
      LaneWrites mine = new LaneWrites();
      boolean[] laneWrite = {false};
      return proxy(
          Connection.class,
          (p, m, args) -> {
            String name = m.getName();
            if (name.equals("close") && laneWrite[0]) {
              transactions.incrementAndGet();
              statements.addAndGet(mine.statements.get());
              executions.addAndGet(mine.executions.get());
              rows.addAndGet(mine.rows.get());
              commits.addAndGet(mine.commits.get());
            }
            if (name.equals("commit")) {
              mine.commits.incrementAndGet();
            }
            Object out = invoke(m, c, args);
            if (name.startsWith("prepare") || name.equals("createStatement")) {
              mine.statements.incrementAndGet();
              if (args != null && isLaneWrite(args[0])) {
                laneWrite[0] = true;
              }
              if (out instanceof PreparedStatement ps) {
                return proxy(
                    PreparedStatement.class,
                    (sp, sm, sargs) -> {
                      if (sm.getName().startsWith("execute")) {
                        mine.executions.incrementAndGet();
                      }
                      if (sm.getName().equals("addBatch")) {
                        mine.rows.incrementAndGet();
                      }
                      return invoke(sm, ps, sargs);
                    });
              }
            }
            return out;
          });
    }
  }

  /** Wraps a transport's receivers; keeps every capability ({@link QueueOrder} included). */
  public static class Wrapped extends ForwardingTransport {
    private final UnaryOperator<Receiver> receivers;

    /** {@code transport}, its receivers wrapped by {@code receivers}. */
    public Wrapped(Transport transport, UnaryOperator<Receiver> receivers) {
      super(transport);
      this.receivers = receivers;
    }

    @Override
    public Receiver receiver(String destination, String consumerId) {
      return receivers.apply(super.receiver(destination, consumerId));
    }
  }

  /**
   * A broken twin's transport: says it delivers in queue order but does nothing to make its queue
   * keep a key's order (a RabbitMQ queue without a single active consumer, a standard SQS queue),
   * so its receivers feed the lane in whatever order the broker gives.
   */
  public static final class Unordered extends Wrapped implements QueueOrder {
    /** {@code transport}, its receivers wrapped by {@code receivers}. */
    public Unordered(Transport transport, UnaryOperator<Receiver> receivers) {
      super(transport, receivers);
    }

    @Override
    public void deliverInQueueOrder(String destination, String consumerId, int batch) {
      // the twin: the queue is left as it is
    }
  }

  /** A receiver passing everything on; override what a test changes. */
  public static class Passing implements Receiver {
    private final Receiver r;

    /** Passes everything on to {@code r}. */
    public Passing(Receiver r) {
      this.r = r;
    }

    @Override
    public List<Delivery> poll(int max, Duration wait) throws InterruptedException {
      return r.poll(max, wait);
    }

    @Override
    public List<Delivery> poll(int max, Duration wait, Duration linger)
        throws InterruptedException {
      return r.poll(max, wait, linger);
    }

    @Override
    public void ack(List<Delivery> deliveries) {
      r.ack(deliveries);
    }

    @Override
    public void nack(List<Delivery> deliveries, Duration delay) {
      r.nack(deliveries, delay);
    }

    @Override
    public void release(List<Delivery> deliveries) {
      r.release(deliveries);
    }

    @Override
    public boolean cameBackCleanly(Delivery d) {
      return r.cameBackCleanly(d);
    }

    @Override
    public void close() {
      r.close();
    }
  }

  private static DataSource connections(DataSource dataSource, UnaryOperator<Connection> wrap) {
    return proxy(
        DataSource.class,
        (p, m, args) -> {
          Object out = invoke(m, dataSource, args);
          return out instanceof Connection c ? wrap.apply(c) : out;
        });
  }

  private static <T> T proxy(Class<T> type, java.lang.reflect.InvocationHandler h) {
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, h));
  }

  private static Object invoke(Method m, Object target, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
