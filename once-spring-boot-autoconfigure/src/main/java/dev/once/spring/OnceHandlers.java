package dev.once.spring;

import dev.once.Handler;
import dev.once.PayloadCodec;
import dev.once.UnknownDestinationException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

/**
 * The {@link OnceHandler} methods of the application's beans, grouped by consumer and destination,
 * found from the bean definitions without creating the beans (so that Once's destinations can be
 * declared before any handler bean exists). Each group is one {@link Handler} for the core.
 */
public final class OnceHandlers {
  private final Map<Subscription, List<HandlerMethod>> methods = new LinkedHashMap<>();

  /** A consumer's subscription to one destination. */
  public record Subscription(String consumer, String destination) {}

  public OnceHandlers(ListableBeanFactory beans, Supplier<PayloadCodec> codec) {
    for (Found f : scan(beans)) {
      OnceHandler a = f.annotation();
      methods
          .computeIfAbsent(new Subscription(a.consumer(), a.destination()), k -> new ArrayList<>())
          .add(
              new HandlerMethod(
                  f.beanName(), () -> beans.getBean(f.beanName()), f.method(), a, codec));
    }
  }

  /**
   * The consumer ids of the {@link OnceHandler} methods, read from the bean definitions without
   * creating any bean: for checks that run before the application's beans exist.
   */
  public static Set<String> consumerIds(ListableBeanFactory beans) {
    Set<String> ids = new TreeSet<>();
    scan(beans).forEach(f -> ids.add(f.annotation().consumer()));
    return ids;
  }

  /** One {@link OnceHandler} method of one bean definition, as the proxy exposes it. */
  private record Found(String beanName, Method method, OnceHandler annotation) {}

  private static List<Found> scan(ListableBeanFactory beans) {
    List<Found> out = new ArrayList<>();
    for (String name : beans.getBeanDefinitionNames()) {
      if (ScopedProxyUtils.isScopedTarget(name)) {
        continue; // its scoped proxy is the bean to call, found under the plain name
      }
      Class<?> type = beans.getType(name, false);
      if (type == null || type.getName().startsWith("org.springframework.")) {
        continue;
      }
      Class<?> user = ClassUtils.getUserClass(type);
      Map<Method, OnceHandler> found =
          MethodIntrospector.selectMethods(
              user,
              (MethodIntrospector.MetadataLookup<OnceHandler>)
                  m -> AnnotatedElementUtils.findMergedAnnotation(m, OnceHandler.class));
      for (Map.Entry<Method, OnceHandler> e : found.entrySet()) {
        Method m = e.getKey();
        if (!Modifier.isPublic(m.getModifiers()) || Modifier.isStatic(m.getModifiers())) {
          throw new IllegalStateException(
              "@OnceHandler method "
                  + user.getName()
                  + "."
                  + m.getName()
                  + " must be public and not static");
        }
        out.add(new Found(name, AopUtils.selectInvocableMethod(m, type), e.getValue()));
      }
    }
    return out;
  }

  /**
   * The methods that take a typed payload (decoded by the {@link PayloadCodec}), as {@code
   * bean.method(Type)}: the application needs a codec if there is any.
   */
  public List<String> typedPayloadMethods() {
    List<String> out = new ArrayList<>();
    methods.values().stream()
        .flatMap(List::stream)
        .forEach(m -> m.typedPayloads().forEach(t -> out.add(m + "(" + t.getSimpleName() + ")")));
    return out;
  }

  /** Every consumer/destination pair that has at least one handler method. */
  public Set<Subscription> subscriptions() {
    return methods.keySet();
  }

  /** The destinations the handlers subscribe to. */
  public Set<String> destinations() {
    Set<String> out = new LinkedHashSet<>();
    methods.keySet().forEach(s -> out.add(s.destination()));
    return out;
  }

  /**
   * The handler of one subscription, for the core (or for {@code HandlerKit}): calls each of its
   * methods that accepts the event, in the transaction the consumer runs, and flushes what they
   * left pending (JPA) so that a failing write fails that delivery.
   *
   * @throws IllegalArgumentException if no method handles that subscription
   */
  public Handler handler(String consumer, String destination) {
    List<HandlerMethod> list = methods.get(new Subscription(consumer, destination));
    if (list == null) {
      throw new IllegalArgumentException(
          "no @OnceHandler(consumer = \""
              + consumer
              + "\", destination = \""
              + destination
              + "\"); there are "
              + methods.keySet());
    }
    return (tx, event) -> {
      try {
        for (HandlerMethod m : list) {
          if (m.accepts(event)) {
            m.invoke(tx, event);
          }
        }
      } catch (UnknownDestinationException e) {
        throw OncePublisher.inSpringTerms(e);
      }
      SpringTransactions.flush();
    };
  }
}
