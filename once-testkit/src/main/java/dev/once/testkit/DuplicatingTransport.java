package dev.once.testkit;

import dev.once.Event;
import dev.once.spi.ForwardingTransport;
import dev.once.spi.InDatabasePublish;
import dev.once.spi.PublishResult;
import dev.once.spi.Transport;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * Wraps a transport and publishes a share of the messages a second time, as a broker or a network
 * retry would: the consumer receives two deliveries of one event. Every capability of the wrapped
 * transport is kept ({@link ForwardingTransport}); a relay that publishes in its own transaction
 * ({@link InDatabasePublish}) gets its copies there too.
 */
public final class DuplicatingTransport extends ForwardingTransport {
  private final double rate;
  private final SplittableRandom random;
  private final AtomicLong duplicated = new AtomicLong();

  public DuplicatingTransport(Transport delegate, double rate, long seed) {
    super(delegate);
    if (rate < 0 || rate > 1) {
      throw new IllegalArgumentException("duplicate rate must be between 0 and 1, was " + rate);
    }
    this.rate = rate;
    this.random = new SplittableRandom(seed);
  }

  @Override
  public PublishResult publish(List<Event> batch, Duration confirmTimeout) {
    return withCopies(batch, b -> super.publish(b, confirmTimeout));
  }

  /** One way of publishing a batch. */
  private interface Publish<X extends Exception> {
    PublishResult batch(List<Event> batch) throws X;
  }

  /** Publishes {@code batch}, then a second copy of a share of what was confirmed. */
  private <X extends Exception> PublishResult withCopies(List<Event> batch, Publish<X> publish)
      throws X {
    PublishResult result = publish.batch(batch);
    List<Event> again = new ArrayList<>();
    synchronized (random) {
      for (int i = 0; i < batch.size(); i++) {
        if (result.isConfirmed(i) && random.nextDouble() < rate) {
          again.add(batch.get(i));
        }
      }
    }
    if (!again.isEmpty()) {
      duplicated.addAndGet(publish.batch(again).confirmed().cardinality());
    }
    return result;
  }

  /** How many extra copies the broker accepted. */
  public long duplicated() {
    return duplicated.get();
  }

  /** The wrapped transport's in-database publish, duplicating as {@link #publish} does. */
  @Override
  public <C> Optional<C> capability(Class<C> type) {
    if (type == InDatabasePublish.class) {
      return delegate()
          .capability(InDatabasePublish.class)
          .map(inner -> type.cast(new Duplicating(inner)));
    }
    return super.capability(type);
  }

  private final class Duplicating implements InDatabasePublish {
    private final InDatabasePublish inner;

    Duplicating(InDatabasePublish inner) {
      this.inner = inner;
    }

    @Override
    public boolean publishesIn(DataSource dataSource) {
      return inner.publishesIn(dataSource);
    }

    @Override
    public PublishResult publishInTransaction(Connection c, List<Event> batch) throws SQLException {
      return withCopies(batch, b -> inner.publishInTransaction(c, b));
    }

    @Override
    public void publishedInTransaction() {
      inner.publishedInTransaction();
    }
  }
}
