package dev.once.spring.autoconfigure;

import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.validation.BindingResult;
import org.springframework.validation.Errors;

/**
 * The part of {@link OncePropertiesValidator} that finds settings under {@code once.consumers} for
 * a consumer id no {@code @OnceHandler} has, and names the line that set them (with a "did you
 * mean").
 */
final class UnknownConsumers {
  private static final Logger log = LoggerFactory.getLogger(UnknownConsumers.class);

  private final Set<String> handlerConsumers;
  private final Iterable<ConfigurationPropertySource> sources;

  UnknownConsumers(Set<String> handlerConsumers, Iterable<ConfigurationPropertySource> sources) {
    this.handlerConsumers = handlerConsumers;
    this.sources = sources;
  }

  /**
   * A consumer id under {@code once.consumers} that no {@code @OnceHandler} uses is almost always a
   * typo, and its settings would silently not apply to the consumer that was meant.
   */
  void check(OnceProperties p, Errors errors) {
    for (String id : p.getConsumers().keySet()) {
      if (handlerConsumers.contains(id)) {
        continue;
      }
      String problem =
          "once.consumers."
              + id
              + ".* is set, but no @OnceHandler has consumer = \""
              + id
              + "\""
              + closest(id)
              + "; the consumers of this application are "
              + handlerConsumers;
      if (p.isFailOnUnknownConsumers()) {
        String reason =
            problem
                + " (set once.fail-on-unknown-consumers=false if this configuration is shared"
                + " with services that run other consumers)";
        ConfigurationProperty first = firstUnder(errors.getObjectName(), "consumers", id);
        if (first == null) {
          errors.reject("once.consumers.unknown", reason);
        } else {
          String property = first.getName().toString();
          ((BindingResult) errors)
              .addError(
                  new OncePropertiesValidator.PropertyError(
                      errors.getObjectName(),
                      property.substring(errors.getObjectName().length() + 1),
                      first.getValue(),
                      reason,
                      first.getOrigin()));
        }
      } else {
        log.warn("once: {}", problem);
      }
    }
  }

  /** The first property set under {@code root.map.key}, for the line that set it. */
  private ConfigurationProperty firstUnder(String root, String map, String key) {
    ConfigurationPropertyName parent = ConfigurationPropertyName.of(root).append(map);
    for (ConfigurationPropertySource source : sources) {
      if (source instanceof IterableConfigurationPropertySource iterable) {
        ConfigurationProperty found =
            iterable.stream()
                .filter(
                    n ->
                        parent.isAncestorOf(n)
                            && n.getNumberOfElements() > parent.getNumberOfElements())
                .filter(
                    n ->
                        key.equals(n.getElement(parent.getNumberOfElements(), Form.ORIGINAL))
                            || key.equals(n.getElement(parent.getNumberOfElements(), Form.DASHED)))
                .findFirst()
                .map(iterable::getConfigurationProperty)
                .orElse(null);
        if (found != null) {
          return found;
        }
      }
    }
    return null;
  }

  private String closest(String id) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String known : handlerConsumers) {
      int d = distance(id, known);
      if (d < bestDistance) {
        best = known;
        bestDistance = d;
      }
    }
    return best != null && bestDistance <= Math.max(2, id.length() / 3)
        ? " (did you mean \"" + best + "\"?)"
        : "";
  }

  /** Levenshtein distance, for the "did you mean" of a mistyped consumer id. */
  static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] t = previous;
      previous = current;
      current = t;
    }
    return previous[b.length()];
  }
}
