package dev.once.spring.autoconfigure;

import dev.once.Once;
import dev.once.micrometer.MicrometerListener;
import dev.once.micrometer.WorkloadGauges;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Once's metrics (module once-micrometer) in the application's {@link MeterRegistry}: rates and
 * latencies through a {@link MicrometerListener} that Once is built with, and the workload gauges
 * (backlogs, oldest ages, dead letters) read every {@code once.metrics.refresh-interval}.
 */
@AutoConfiguration(
    after = OnceAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration"
    })
@ConditionalOnClass({MeterRegistry.class, MicrometerListener.class})
@ConditionalOnBean({MeterRegistry.class, Once.class})
@ConditionalOnProperty(
    prefix = "once",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
@EnableConfigurationProperties(OnceProperties.class)
public class OnceMetricsAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  public MicrometerListener onceMicrometerListener(MeterRegistry registry) {
    return new MicrometerListener(registry);
  }

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public WorkloadGauges onceWorkloadGauges(
      MeterRegistry registry, Once once, OnceProperties properties) {
    return WorkloadGauges.bind(
        registry, once::status, properties.getMetrics().getRefreshInterval());
  }
}
