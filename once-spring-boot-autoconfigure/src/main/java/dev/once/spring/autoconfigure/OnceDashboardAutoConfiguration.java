package dev.once.spring.autoconfigure;

import dev.once.Once;
import dev.once.dashboard.Dashboard;
import dev.once.dashboard.DashboardListener;
import dev.once.spi.Transport;
import dev.once.spring.OnceHandlers;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Once's dashboard (module once-dashboard) served by the application on its own port, when {@code
 * once.dashboard.enabled=true}: off by default because it opens a port. The {@link
 * DashboardListener} is an {@code OnceListener} bean, so the application's {@link Once} is built
 * with it and the rates are counted exactly. The token is generated when none is set; only the URL
 * without it is logged. The application's {@code Transport} is passed on with the consumers of its
 * {@code @OnceHandler}s, so that what the broker dead-lettered on its own (RabbitMQ) is shown per
 * consumer.
 */
@AutoConfiguration(
    after = OnceAutoConfiguration.class,
    afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnClass(Dashboard.class)
@ConditionalOnProperty(prefix = "once.dashboard", name = "enabled", havingValue = "true")
@EnableConfigurationProperties(OnceDashboardProperties.class)
public class OnceDashboardAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  public DashboardListener onceDashboardListener() {
    return new DashboardListener();
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  @ConditionalOnBean({DataSource.class, Once.class})
  public Dashboard onceDashboard(
      DataSource dataSource,
      Once once,
      DashboardListener listener,
      OnceDashboardProperties properties,
      ObjectProvider<Transport> transport,
      ObjectProvider<OnceHandlers> handlers) {
    String token = properties.getToken();
    Dashboard.Builder b =
        Dashboard.builder(dataSource, once.deadLetters())
            .listener(listener)
            .bind(properties.getBind())
            .port(properties.getPort())
            .token(token == null || token.isBlank() ? null : token)
            .readOnly(properties.isReadOnly());
    Transport t = transport.getIfUnique();
    OnceHandlers h = handlers.getIfAvailable();
    if (t != null && h != null) {
      b.transport(t, consumerDestinations(h));
    }
    return b.build().start();
  }

  /**
   * Each consumer of a {@code @OnceHandler} and the destination it reads (one per consumer id: Once
   * refuses one consumer id on two destinations), for the broker's own dead letters per consumer.
   */
  static Map<String, String> consumerDestinations(OnceHandlers handlers) {
    Map<String, String> groups = new TreeMap<>();
    handlers.subscriptions().forEach(s -> groups.putIfAbsent(s.consumer(), s.destination()));
    return groups;
  }
}
