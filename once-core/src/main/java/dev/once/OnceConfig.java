package dev.once;

import dev.once.spi.Validate;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;

/**
 * The validated settings of a {@link Once} instance. Built by {@link OnceBuilder}.
 *
 * @param destinations where events may be published and consumed; anything else is refused at
 *     publish and at a consumer's build (none: an instance that only consumes, from any
 *     destination, or administers)
 * @param partitions how many key partitions the outbox is split into (1 to 4096); relays share them
 *     out. Changing it reorders keys in flight, so keep it fixed for a database.
 * @param relayBatchSize outbox rows a relay claims and publishes at a time (1 to 10 000)
 * @param relayIdleWait how long an idle relay waits for a wake-up before looking again
 * @param confirmTimeout how long a relay waits for the broker's confirms of one batch
 * @param relayRetry publish attempts of a row the broker refused before the relay parks it as a
 *     dead letter, and the backoff between them
 * @param retention what is deleted when (see {@link Once#newRetention()})
 * @param codec the codec of typed payloads; null: the one on the classpath, found when first needed
 * @param clock the time source
 */
public record OnceConfig(
    Set<String> destinations,
    int partitions,
    int relayBatchSize,
    Duration relayIdleWait,
    Duration confirmTimeout,
    RetryPolicy relayRetry,
    RetentionPolicy retention,
    PayloadCodec codec,
    Clock clock) {

  public OnceConfig {
    Validate.notNull("destinations", destinations);
    for (String d : destinations) {
      Validate.name("destinations", d);
    }
    destinations = Set.copyOf(destinations);
    Validate.range("partitions", partitions, 1, 4096);
    Validate.range("relayBatchSize", relayBatchSize, 1, 10_000);
    Validate.positive("relayIdleWait", relayIdleWait);
    Validate.positive("confirmTimeout", confirmTimeout);
    Validate.notNull("relayRetry", relayRetry);
    Validate.notNull("retention", retention);
    Validate.notNull("clock", clock);
  }

  /** {@link #codec()}, or the one on the classpath. */
  public PayloadCodec codecOrDiscover() {
    return codec != null ? codec : PayloadCodec.discover();
  }
}
