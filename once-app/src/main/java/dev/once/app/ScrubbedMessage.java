package dev.once.app;

import ch.qos.logback.classic.pattern.MessageConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.once.app.common.Secrets;

/** logback's {@code %msg} without the passwords this process knows ({@link Secrets#scrub}). */
public final class ScrubbedMessage extends MessageConverter {
  @Override
  public String convert(ILoggingEvent event) {
    return Secrets.scrub(super.convert(event));
  }
}
