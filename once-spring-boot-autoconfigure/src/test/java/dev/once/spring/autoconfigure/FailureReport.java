package dev.once.spring.autoconfigure;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;

/**
 * What Spring Boot prints under "APPLICATION FAILED TO START" for a failure: the first analysis of
 * the failure analyzers registered in {@code META-INF/spring.factories}, in Boot's order, as Boot's
 * own {@code FailureAnalyzers} finds it.
 */
final class FailureReport {
  private FailureReport() {}

  static String of(Throwable failure) {
    ArgumentResolver arguments =
        ArgumentResolver.of(BeanFactory.class, new DefaultListableBeanFactory())
            .and(Environment.class, new StandardEnvironment());
    for (FailureAnalyzer analyzer :
        SpringFactoriesLoader.forDefaultResourceLocation(FailureReport.class.getClassLoader())
            .load(
                FailureAnalyzer.class,
                arguments,
                SpringFactoriesLoader.FailureHandler.handleMessage((message, e) -> {}))) {
      FailureAnalysis analysis = analyzer.analyze(failure);
      if (analysis != null) {
        return "Description:\n"
            + analysis.getDescription()
            + "\n\nAction:\n"
            + analysis.getAction();
      }
    }
    throw new AssertionError("no failure analyzer explains " + failure, failure);
  }

  /** The first {@code type} in the cause chain of {@code failure}, or null. */
  static <T extends Throwable> T firstOf(Throwable failure, Class<T> type) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }
}
