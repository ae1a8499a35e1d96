package dev.once.spi;

import dev.once.Event;
import java.time.Duration;

/**
 * A capability of a {@link Transport} that can publish to one consumer group of a destination only:
 * what a replay of that group's dead letter needs. Without it a replay is refused.
 */
public interface Replay {

  /**
   * Publishes {@code event} again for {@code consumerId} only and waits for the confirmation. No
   * other group bound to the destination may get it: their markers may be gone (retention), and a
   * second delivery would then act twice.
   */
  PublishResult redeliver(Event event, String consumerId, Duration confirmTimeout);
}
