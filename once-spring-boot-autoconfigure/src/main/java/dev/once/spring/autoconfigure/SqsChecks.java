package dev.once.spring.autoconfigure;

import java.util.Map;

/**
 * once-sqs's own checks of {@code once.sqs.*}, without a transport. Kept apart so that the module
 * is not loaded unless it is on the classpath.
 */
final class SqsChecks {
  private SqsChecks() {}

  /** The transport's setting paths, by property name. */
  static final Map<String, String> PATHS =
      Map.of(
          "sqs.namePrefix", "namePrefix",
          "sqs.visibilityTimeout", "visibilityTimeout");

  static void check(OnceProperties.Sqs s) {
    OnceSqsAutoConfiguration.builder(s).settings();
  }
}
