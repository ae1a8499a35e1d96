package dev.once.tablequeue;

import dev.once.internal.Wakeup;
import dev.once.internal.postgres.PostgresNotifier;
import dev.once.jdbc.Channel;
import dev.once.jdbc.Dialect;
import javax.sql.DataSource;

/**
 * How a table queue wakes its receivers after a commit that wrote rows: those of this process at
 * once, those of other processes by a notification sent after the commit (where the database has
 * one; elsewhere they find the rows at their next poll); and the one listener that wakes this
 * process's receivers when another process wrote.
 */
final class QueueSignals implements AutoCloseable {
  /** All receivers wake on a signal: they may be of other consumers and destinations. */
  private final Wakeup wakeup = new Wakeup();

  private final DataSource dataSource;
  private final Dialect dialect;

  /** Null where the database cannot wake other processes: their receivers poll. */
  private final PostgresNotifier notifier;

  /**
   * This queue's token in its notifications: its own listener ignores them, since its publishes
   * wake its receivers directly.
   */
  private final String sender = PostgresNotifier.newSender();

  private AutoCloseable listener;

  QueueSignals(DataSource dataSource, Dialect dialect) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.notifier =
        dialect.flavour().notifies()
            ? new PostgresNotifier(
                dataSource, c -> dialect.flavour().notify(c, Channel.QUEUE, sender), "queue")
            : null;
  }

  /** What the receivers of this process wait on. */
  Wakeup wakeup() {
    return wakeup;
  }

  /** Whether this queue notifies other processes (on a connection of its own). */
  boolean notifies() {
    return notifier != null;
  }

  /** After a commit that wrote rows: wakes the receivers of other processes, then this one's. */
  void committed() {
    otherProcesses();
    thisProcess();
  }

  /** Wakes the receivers of other processes (a coalesced notification, sent after the commit). */
  void otherProcesses() {
    if (notifier != null) {
      notifier.signal();
    }
  }

  /** Wakes the receivers of this process at once, without waiting for a notification. */
  void thisProcess() {
    wakeup.signalAll();
  }

  /** Starts listening for other processes' notifications, once. */
  synchronized void listen() {
    if (listener == null) {
      listener =
          dialect.flavour().notifies()
              ? dialect.flavour().listen(dataSource, Channel.QUEUE, sender, wakeup::signalAll)
              : () -> {};
    }
  }

  @Override
  public synchronized void close() {
    if (notifier != null) {
      notifier.close();
    }
    if (listener != null) {
      try {
        listener.close();
      } catch (Exception e) {
        // a listener that fails to stop is a daemon thread; nothing waits for it
      }
      listener = null;
    }
  }
}
