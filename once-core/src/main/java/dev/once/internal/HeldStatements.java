package dev.once.internal;

import dev.once.Event;
import dev.once.jdbc.Sql;
import dev.once.jdbc.StoreDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The statements of producer transactions held prepared on the driver's connections under a pool,
 * as a hand-written producer holds its two for a whole run: a producer transaction on a borrowed
 * connection finds them there instead of preparing (and closing) each statement again, which cost
 * it about a third of the bytes it allocated ({@code docs/PERFORMANCE.md}, "Producer statements
 * held on the driver's connection").
 *
 * <p>The driver's connection is what {@link Connection#unwrap} gives for {@link Connection}; where
 * that is the borrowed connection itself (no pool, which closes it after the transaction) or fails,
 * a transaction prepares its statements as before. The driver keeps its own server-side statement
 * for a text per connection either way (pgjdbc's statement cache): holding the JDBC object changes
 * neither which plan runs nor when it is prepared again after a schema change. A connection's
 * statements are dropped (closed) when one of them fails, whatever the failure (a broken
 * connection, a plan the server refuses, a user statement's error), and prepared again by the next
 * transaction; those of a connection the pool has closed are let go when a new connection is first
 * seen; all of them are closed with the instance. At most {@value #MOST} texts are held per
 * connection: a producer that builds its statement texts by hand past that prepares the rest per
 * use.
 */
public final class HeldStatements implements AutoCloseable {
  static final int MOST = 16;

  private volatile Held[] held = new Held[0];
  private volatile boolean closed;

  /** The statements held for the driver's connection under {@code c}; null: none to hold. */
  public Held on(Connection c) {
    if (closed) {
      return null;
    }
    Connection driver;
    try {
      driver = c.unwrap(Connection.class);
    } catch (SQLException | RuntimeException e) {
      return null;
    }
    if (driver == null || driver == c) {
      return null;
    }
    for (Held h : held) {
      if (h.driver == driver) {
        return h;
      }
    }
    return add(driver);
  }

  private synchronized Held add(Connection driver) {
    List<Held> kept = new ArrayList<>(held.length + 1);
    for (Held h : held) {
      if (h.driver == driver) {
        return h;
      }
      if (isClosed(h.driver)) {
        h.drop(); // evicted by the pool: let its statements go
      } else {
        kept.add(h);
      }
    }
    Held h = new Held(driver);
    kept.add(h);
    held = kept.toArray(new Held[0]);
    return h;
  }

  /** How many driver connections have statements held (for tests). */
  int connections() {
    return held.length;
  }

  private static boolean isClosed(Connection c) {
    try {
      return c.isClosed();
    } catch (SQLException e) {
      return true;
    }
  }

  /** Closes every held statement; later transactions prepare their own. */
  @Override
  public synchronized void close() {
    closed = true;
    for (Held h : held) {
      h.drop();
    }
    held = new Held[0];
  }

  /**
   * One driver connection's statements, used by the one transaction that has the connection
   * borrowed (the lock only keeps {@link HeldStatements#close} from closing one in use).
   */
  public static final class Held {
    private final Connection driver;
    private final Map<String, PreparedStatement> statements = new HashMap<>();
    private boolean dropped;

    private Held(Connection driver) {
      this.driver = driver;
    }

    /** {@link Sql#update} of {@code statement} on {@code c}, by the statement held for it. */
    public synchronized int update(Connection c, Sql sql, String statement, Object... params)
        throws SQLException {
      PreparedStatement ps = statement(statement);
      if (ps == null) {
        return sql.update(c, statement, params);
      }
      try {
        sql.bind(ps, params);
        return ps.executeUpdate();
      } catch (SQLException | RuntimeException e) {
        dropStatements();
        throw e;
      }
    }

    /** {@link StoreDialect#insertOutbox} on {@code c}, by the statement held for it. */
    public synchronized boolean insertOutbox(
        Connection c, StoreDialect store, Event event, int partition) throws SQLException {
      String text = store.outboxStatement(event);
      PreparedStatement ps = text == null ? null : statement(text);
      if (ps == null) {
        return store.insertOutbox(c, event, partition);
      }
      try {
        return store.insertOutbox(ps, event, partition);
      } catch (SQLException | RuntimeException e) {
        dropStatements();
        throw e;
      }
    }

    /** The statement held for {@code text}, prepared at first use; null: not held. */
    private PreparedStatement statement(String text) throws SQLException {
      if (dropped) {
        return null;
      }
      PreparedStatement ps = statements.get(text);
      if (ps == null && statements.size() < MOST) {
        ps = driver.prepareStatement(text);
        statements.put(text, ps);
      }
      return ps;
    }

    private void dropStatements() {
      for (PreparedStatement ps : statements.values()) {
        try {
          ps.close();
        } catch (SQLException ignored) {
          // a broken connection: its statements go with it
        }
      }
      statements.clear();
    }

    private synchronized void drop() {
      dropped = true;
      dropStatements();
    }
  }
}
