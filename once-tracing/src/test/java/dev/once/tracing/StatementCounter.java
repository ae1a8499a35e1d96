package dev.once.tracing;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * A {@link DataSource} that counts the statements prepared or created, and the commits, of the
 * thread that made it: the wake-up notifier sends its coalesced {@code NOTIFY} from a thread of its
 * own, as many times as the commits' timing gives, which is no cost of tracing.
 */
final class StatementCounter {
  private final Thread owner = Thread.currentThread();
  final AtomicLong statements = new AtomicLong();
  final AtomicLong commits = new AtomicLong();
  final DataSource dataSource;

  StatementCounter(DataSource delegate) {
    this.dataSource = proxy(DataSource.class, delegate, this::onDataSource);
  }

  private Object onDataSource(Object target, Method m, Object[] args) throws Throwable {
    Object result = call(target, m, args);
    return result instanceof Connection c ? proxy(Connection.class, c, this::onConnection) : result;
  }

  private Object onConnection(Object target, Method m, Object[] args) throws Throwable {
    if (Thread.currentThread() != owner) {
      return call(target, m, args);
    }
    switch (m.getName()) {
      case "prepareStatement", "createStatement", "prepareCall" -> statements.incrementAndGet();
      case "commit" -> commits.incrementAndGet();
      default -> {}
    }
    return call(target, m, args);
  }

  interface Call {
    Object on(Object target, Method m, Object[] args) throws Throwable;
  }

  private static <T> T proxy(Class<T> type, T target, Call call) {
    InvocationHandler h = (p, m, args) -> call.on(target, m, args);
    return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, h));
  }

  private static Object call(Object target, Method m, Object[] args) throws Throwable {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
