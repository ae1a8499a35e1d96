package dev.once.spring.autoconfigure;

import dev.once.ConfigurationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * A setting Once refused while the application started, beyond the {@code once.*} properties (those
 * are checked at binding, naming the property): one of the application's own beans, or an
 * {@code @OnceHandler}'s consumer or destination.
 */
class OnceConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<ConfigurationException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, ConfigurationException cause) {
    if (cause.path().equals("codec")) {
      return new FailureAnalysis(
          "Once has no PayloadCodec: " + cause.getMessage(),
          "Add the dependency dev.once:once-jackson (or spring-boot-starter-jackson), or declare a"
              + " PayloadCodec bean (docs/SPRING.md, \"Typed payloads need a codec\").",
          cause);
    }
    return new FailureAnalysis(
        "Once refused the setting " + cause.path() + ": " + cause.getMessage(),
        "Change the once.* property, the @OnceHandler attribute or the bean of yours that sets "
            + cause.path()
            + " (docs/SPRING.md lists every property).",
        cause);
  }
}
