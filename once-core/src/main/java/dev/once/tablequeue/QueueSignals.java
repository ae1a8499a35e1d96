package dev.once.tablequeue;

import dev.once.internal.Wakeup;
import dev.once.internal.postgres.PostgresListener;
import dev.once.internal.postgres.PostgresNotifier;
import dev.once.jdbc.Channel;
import dev.once.jdbc.Dialect;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * How a table queue wakes its receivers after a commit that wrote rows: those of this process at
 * once, those of other processes by a notification sent after the commit (where the database has
 * one; elsewhere they find the rows at their next poll); and the one listener that wakes this
 * process's receivers when another process wrote.
 *
 * <p>A signal wakes one waiting receiver of each consumer group, not all of them: the receivers of
 * a group compete for the same rows, and when the queue is woken per relay batch (ten-odd rows
 * under load) the first claim takes them all and the others' claims found nothing: 4 workers made
 * 2.3 empty claim transactions per relay batch (measured, docs/PERFORMANCE.md). A receiver whose
 * claim came back full wakes the next one of its group ({@link TableQueueReceiver}).
 */
final class QueueSignals implements AutoCloseable {
  /** What each consumer group's receivers wait on: a signal wakes one of each group. */
  private final Map<String, Wakeup> groups = new ConcurrentHashMap<>();

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
                dataSource,
                c -> dialect.flavour().notify(c, Channel.QUEUE, sender),
                c -> PostgresListener.anybodyElse(c, dataSource),
                "queue")
            : null;
  }

  /** What the receivers of {@code group} in this process wait on. */
  Wakeup wakeup(String group) {
    return groups.computeIfAbsent(group, g -> new Wakeup());
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

  /**
   * Wakes one receiver of each group of this process at once, without waiting for a notification.
   */
  void thisProcess() {
    groups.values().forEach(Wakeup::signal);
  }

  /** Starts listening for other processes' notifications, once. */
  synchronized void listen() {
    if (listener == null) {
      listener =
          dialect.flavour().notifies()
              ? dialect.flavour().listen(dataSource, Channel.QUEUE, sender, this::thisProcess)
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
