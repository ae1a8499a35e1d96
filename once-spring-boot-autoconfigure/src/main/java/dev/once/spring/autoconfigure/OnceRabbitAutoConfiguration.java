package dev.once.spring.autoconfigure;

import dev.once.rabbitmq.RabbitTransport;
import dev.once.rabbitmq.RabbitTransportBuilder;
import dev.once.spi.Transport;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * {@code once.transport=rabbitmq}: Once's RabbitMQ transport (module once-rabbitmq), connected with
 * Spring Boot's own {@code spring.rabbitmq.host/port/username/password/virtual-host} (the same
 * defaults: localhost:5672, guest/guest, {@code /}).
 */
@AutoConfiguration(before = OnceAutoConfiguration.class)
@ConditionalOnClass(RabbitTransport.class)
@ConditionalOnProperty(prefix = "once", name = "transport", havingValue = "rabbitmq")
public class OnceRabbitAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean(Transport.class)
  public RabbitTransport onceRabbitTransport(Environment env, OnceProperties properties) {
    return builder(properties.getRabbitmq()).uri(uri(env)).build();
  }

  /** The transport's settings from {@code once.rabbitmq.*} (checked at binding, too). */
  static RabbitTransportBuilder builder(OnceProperties.Rabbitmq r) {
    RabbitTransportBuilder b = RabbitTransport.builder();
    if (r.getNamePrefix() != null) {
      b.namePrefix(r.getNamePrefix());
    }
    if (r.getPrefetch() != null) {
      b.prefetch(r.getPrefetch());
    }
    if (r.getDeliveryLimit() != null) {
      b.deliveryLimit(r.getDeliveryLimit());
    }
    return b;
  }

  /** An AMQP URI from {@code spring.rabbitmq.*}; the password never reaches a log from here. */
  static String uri(Environment env) {
    String host = env.getProperty("spring.rabbitmq.host", "localhost");
    int port = env.getProperty("spring.rabbitmq.port", Integer.class, 5672);
    String user = env.getProperty("spring.rabbitmq.username", "guest");
    String password = env.getProperty("spring.rabbitmq.password", "guest");
    String vhost = env.getProperty("spring.rabbitmq.virtual-host", "/");
    return "amqp://" + enc(user) + ":" + enc(password) + "@" + host + ":" + port + "/" + enc(vhost);
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
