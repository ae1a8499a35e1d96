package dev.once.spring.autoconfigure;

import dev.once.Tracing;
import dev.once.tracing.ObservationTracing;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * One trace from the request that published an event to the last effect (module once-tracing): an
 * {@link ObservationTracing} over the application's {@link ObservationRegistry} (and its {@link
 * Tracer} and {@link Propagator}, when Micrometer Tracing is there), which Once is built with. Off
 * with {@code once.tracing.enabled=false}.
 */
@AutoConfiguration(
    before = OnceAutoConfiguration.class,
    afterName = {
      "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
      "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration",
      "org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration",
      "org.springframework.boot.micrometer.tracing.brave.autoconfigure.BraveAutoConfiguration"
    })
@ConditionalOnClass({ObservationRegistry.class, ObservationTracing.class})
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnProperty(
    prefix = "once.tracing",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
public class OnceTracingAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(Tracing.class)
  public Tracing onceTracing(
      ObservationRegistry registry,
      ObjectProvider<Tracer> tracer,
      ObjectProvider<Propagator> propagator) {
    return new ObservationTracing(registry, tracer.getIfAvailable(), propagator.getIfAvailable());
  }
}
