package dev.once.spi;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Objects;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} that hands every call to the one it wraps: a wrapper (bounding, counting or
 * logging connections) extends it and overrides only what it changes, usually the two {@code
 * getConnection} methods. {@link #unwrap} finds the wrapped data source itself as well as whatever
 * that one wraps, so a wrapper never hides the pool under it.
 */
public abstract class ForwardingDataSource implements DataSource {
  private final DataSource delegate;

  protected ForwardingDataSource(DataSource delegate) {
    this.delegate = Objects.requireNonNull(delegate, "the wrapped data source");
  }

  /** The data source this one wraps. */
  protected final DataSource delegate() {
    return delegate;
  }

  @Override
  public Connection getConnection() throws SQLException {
    return delegate.getConnection();
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    return delegate.getConnection(user, password);
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
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return delegate.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return iface.isInstance(delegate) ? iface.cast(delegate) : delegate.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return iface.isInstance(delegate) || delegate.isWrapperFor(iface);
  }
}
