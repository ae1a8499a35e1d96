package dev.once.app;

import ch.qos.logback.classic.pattern.ThrowableProxyConverter;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.once.app.common.Secrets;

/**
 * logback's {@code %ex} (a logged exception, its causes and frames) without the passwords this
 * process knows: a driver's exception message often quotes the URL.
 */
public final class ScrubbedThrowable extends ThrowableProxyConverter {
  @Override
  public String convert(ILoggingEvent event) {
    return Secrets.scrub(super.convert(event));
  }
}
