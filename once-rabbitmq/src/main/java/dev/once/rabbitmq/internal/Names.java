package dev.once.rabbitmq.internal;

import dev.once.ConfigurationException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * How destinations and consumer groups map to RabbitMQ names. A destination is a topic exchange
 * {@code <prefix><destination>}; a consumer group is a quorum queue {@code
 * <prefix><destination>.<group>} bound to it with {@code #} (so one consumer id may consume several
 * destinations without mixing them); its dead letters go to the direct exchange {@code
 * <prefix>once.dead-letter} and from there to the queue {@code <queue>.dead-letter}.
 */
public record Names(String prefix) {
  private static final int MAX_BYTES = 255;

  public String exchange(String destination) {
    return checked("destination", destination, prefix + check("destination", destination));
  }

  public String queue(String destination, String group) {
    String name = prefix + check("destination", destination) + "." + check("consumer group", group);
    return checked("consumer group", group, name);
  }

  public String deadLetterExchange() {
    return prefix + "once.dead-letter";
  }

  public String deadLetterQueue(String queue) {
    return queue + ".dead-letter";
  }

  /** A destination's or group's name; compiled once (a relay checks one per message). */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,200}");

  private static String check(String what, String value) {
    if (value == null || !NAME.matcher(value).matches()) {
      throw new ConfigurationException(
          "rabbitmq." + what.replace(" ", ""),
          "must be 1 to 200 letters, digits, '.', '_' or '-', was '" + value + "'");
    }
    return value;
  }

  private static String checked(String what, String value, String name) {
    if (name.startsWith("amq.")) {
      throw new ConfigurationException(
          "rabbitmq." + what.replace(" ", ""),
          "gives the name '" + name + "', which starts with 'amq.' (reserved by RabbitMQ)");
    }
    if (name.getBytes(StandardCharsets.UTF_8).length + ".dead-letter".length() > MAX_BYTES) {
      throw new ConfigurationException(
          "rabbitmq." + what.replace(" ", ""),
          "'" + value + "' makes the name '" + name + "' too long (RabbitMQ's limit: 255 bytes)");
    }
    return name;
  }
}
