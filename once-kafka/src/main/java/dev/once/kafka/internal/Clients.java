package dev.once.kafka.internal;

import dev.once.kafka.KafkaSettings;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;

/** Properties shared by the producer, the consumers and the admin client. */
final class Clients {
  private Clients() {}

  static Properties common(KafkaSettings settings, String clientId) {
    Properties p = new Properties();
    p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
    p.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
    p.put(CommonClientConfigs.RECONNECT_BACKOFF_MS_CONFIG, "200");
    p.put(CommonClientConfigs.RECONNECT_BACKOFF_MAX_MS_CONFIG, "5000");
    p.putAll(settings.extra());
    return p;
  }
}
