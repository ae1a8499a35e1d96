package dev.once.requests;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} that records the SQL text of every statement prepared on its connections.
 */
final class StatementLog implements DataSource {
  private final DataSource delegate;
  private final List<String> statements = new CopyOnWriteArrayList<>();

  StatementLog(DataSource delegate) {
    this.delegate = delegate;
  }

  /** The statements prepared since the last {@link #clear()}, flattened to one line each. */
  List<String> statements() {
    return List.copyOf(statements);
  }

  void clear() {
    statements.clear();
  }

  @Override
  public Connection getConnection() throws SQLException {
    return wrap(delegate.getConnection());
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    return wrap(delegate.getConnection(user, password));
  }

  private Connection wrap(Connection c) {
    InvocationHandler h =
        (proxy, method, args) -> {
          if ((method.getName().equals("prepareStatement")
                  || method.getName().equals("prepareCall"))
              && args != null
              && args[0] instanceof String sql) {
            statements.add(sql.strip().replaceAll("\\s+", " "));
          }
          try {
            return method.invoke(c, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        };
    return (Connection)
        Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class}, h);
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return delegate.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    delegate.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    delegate.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return delegate.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() {
    return Logger.getGlobal();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return delegate.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return delegate.isWrapperFor(iface);
  }
}
