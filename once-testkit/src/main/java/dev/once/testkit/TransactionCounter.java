package dev.once.testkit;

import dev.once.spi.ForwardingDataSource;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * A {@link DataSource} that counts the transactions that write to tables whose names match a
 * pattern: each is counted at its first such write, so a transaction that a crash cut short counts
 * too; a write in auto-commit mode is a transaction of its own. With the consumer's tables ({@link
 * #CONSUMER_TABLES}) it counts what a consumer spends on its deliveries — batches, recorded
 * failures, raised suspects — and not the table queue's claims and acknowledgements.
 */
public final class TransactionCounter extends ForwardingDataSource {
  /** The tables a consumer writes while it handles deliveries. */
  public static final Pattern CONSUMER_TABLES =
      Pattern.compile("once_(inbox|attempt|suspect|dead_letter)\\b");

  private static final Pattern WRITE =
      Pattern.compile("^\\s*(with\\b.*?\\)\\s*)?(insert|update|delete)\\b", Pattern.DOTALL);

  private final Pattern tables;
  private final AtomicLong transactions = new AtomicLong();

  public TransactionCounter(DataSource delegate, Pattern tables) {
    super(delegate);
    this.tables = tables;
  }

  /** Transactions counted so far. */
  public long transactions() {
    return transactions.get();
  }

  @Override
  public Connection getConnection() throws SQLException {
    return wrap(super.getConnection());
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    return wrap(super.getConnection(user, password));
  }

  private Connection wrap(Connection c) {
    return (Connection)
        Proxy.newProxyInstance(
            Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, new Tracked(c));
  }

  private boolean counts(String sql) {
    String s = sql.toLowerCase(Locale.ROOT);
    return WRITE.matcher(s).find() && tables.matcher(s).find();
  }

  /** One connection: whether its current transaction was counted already. */
  private final class Tracked implements InvocationHandler {
    private final Connection c;
    private boolean counted;

    Tracked(Connection c) {
      this.c = c;
    }

    /** A statement of {@code sql} is about to run on this connection. */
    synchronized void running(String sql) throws SQLException {
      if (!counts(sql)) {
        return;
      }
      if (c.getAutoCommit()) {
        transactions.incrementAndGet();
      } else if (!counted) {
        counted = true;
        transactions.incrementAndGet();
      }
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      String name = m.getName();
      if ((name.equals("commit") || name.equals("rollback")) && (args == null || args.length == 0)
          || name.equals("setAutoCommit")
          || name.equals("close")) {
        synchronized (this) {
          counted = false;
        }
      }
      Object result = call(c, m, args);
      if (name.equals("prepareStatement") && args != null && args[0] instanceof String sql) {
        return statement(result, m.getReturnType(), sql);
      }
      if (name.equals("createStatement")) {
        return statement(result, m.getReturnType(), null);
      }
      return result;
    }

    /** Counts when the statement runs: prepared with {@code sql}, or given its text then. */
    private Object statement(Object s, Class<?> type, String sql) {
      InvocationHandler h =
          (proxy, m, args) -> {
            if (m.getName().startsWith("execute")) {
              String text =
                  sql != null ? sql : args != null && args[0] instanceof String t ? t : null;
              if (text != null) {
                running(text);
              }
            }
            return call(s, m, args);
          };
      return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, h);
    }
  }

  private static Object call(Object target, Method m, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
