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
    PublishResult result = super.publish(batch, confirmTimeout);
    List<Event> again = again(batch, result);
    if (!again.isEmpty()) {
      PublishResult second = super.publish(again, confirmTimeout);
      duplicated.addAndGet(second.confirmed().cardinality());
    }
    return result;
  }

  /** The confirmed messages of {@code batch} picked for a second copy. */
  private List<Event> again(List<Event> batch, PublishResult result) {
    List<Event> again = new ArrayList<>();
    synchronized (random) {
      for (int i = 0; i < batch.size(); i++) {
        if (result.isConfirmed(i) && random.nextDouble() < rate) {
          again.add(batch.get(i));
        }
      }
    }
    return again;
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
      PublishResult result = inner.publishInTransaction(c, batch);
      List<Event> again = again(batch, result);
      if (!again.isEmpty()) {
        PublishResult second = inner.publishInTransaction(c, again);
        duplicated.addAndGet(second.confirmed().cardinality());
      }
      return result;
    }

    @Override
    public void publishedInTransaction() {
      inner.publishedInTransaction();
    }
  }
}
