package dev.once.spring.autoconfigure;

import dev.once.spring.OnceHandlers;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.validation.ValidationBindHandler;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

/**
 * Binds and checks {@code once.*} once the bean definitions are known and before any bean is
 * created — before the data source, JPA or the web server start — so that a bad value fails the
 * start at once, in Boot's report of a bad property (Property, Value, Origin, Reason), instead of a
 * stack trace after the application has half started. See {@link OncePropertiesValidator} for what
 * is checked.
 */
final class OncePropertiesCheck implements BeanFactoryPostProcessor, EnvironmentAware {
  private Environment environment;

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void postProcessBeanFactory(ConfigurableListableBeanFactory beans) {
    OncePropertiesValidator validator =
        new OncePropertiesValidator(
            beans.getBeanClassLoader(), OnceHandlers.consumerIds(beans), environment);
    Binder.get(environment)
        .bind(
            "once",
            Bindable.ofInstance(new OnceProperties()),
            new ValidationBindHandler(validator));
  }
}
