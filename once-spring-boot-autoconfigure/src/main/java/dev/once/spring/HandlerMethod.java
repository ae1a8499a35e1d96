package dev.once.spring;

import dev.once.Event;
import dev.once.PayloadCodec;
import dev.once.PayloadDecodingException;
import dev.once.ReceivedEvent;
import dev.once.Tx;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.Set;
import java.util.function.Supplier;

/** One {@link OnceHandler} method of one bean, with its parameters resolved per delivery. */
final class HandlerMethod {
  private final String beanName;
  private final Supplier<Object> bean;
  private final Method method;
  private final Set<String> types;
  private final Supplier<PayloadCodec> codec;

  HandlerMethod(
      String beanName,
      Supplier<Object> bean,
      Method method,
      OnceHandler annotation,
      Supplier<PayloadCodec> codec) {
    this.beanName = beanName;
    this.bean = bean;
    this.method = method;
    this.types = Set.of(annotation.types());
    this.codec = codec;
    method.setAccessible(true);
  }

  /** The parameter types that need the {@link PayloadCodec}: neither the event nor its bytes. */
  java.util.List<Class<?>> typedPayloads() {
    return java.util.Arrays.stream(method.getParameterTypes()).filter(t -> !isPlain(t)).toList();
  }

  private static boolean isPlain(Class<?> type) {
    return type == ReceivedEvent.class
        || type == Event.class
        || Tx.class.isAssignableFrom(type)
        || type == String.class
        || type == byte[].class;
  }

  boolean accepts(ReceivedEvent event) {
    return types.isEmpty() || types.contains(event.event().type());
  }

  void invoke(Tx tx, ReceivedEvent event) throws Exception {
    Parameter[] params = method.getParameters();
    Object[] args = new Object[params.length];
    for (int i = 0; i < params.length; i++) {
      args[i] = argument(params[i].getType(), tx, event);
    }
    try {
      method.invoke(bean.get(), args);
    } catch (InvocationTargetException e) {
      Throwable t = e.getCause();
      if (t instanceof Exception ex) {
        throw ex;
      }
      throw (Error) t;
    }
  }

  private Object argument(Class<?> type, Tx tx, ReceivedEvent event) {
    if (type == ReceivedEvent.class) {
      return event;
    }
    if (type == Event.class) {
      return event.event();
    }
    if (Tx.class.isAssignableFrom(type)) {
      return tx;
    }
    if (type == String.class) {
      return event.event().payloadText();
    }
    if (type == byte[].class) {
      return event.event().payload();
    }
    try {
      return codec.get().decode(event.event().payload(), type);
    } catch (Exception e) { // the same bytes never decode: a dead letter at the first delivery
      throw new PayloadDecodingException(event.event(), type, e);
    }
  }

  @Override
  public String toString() {
    return beanName + "." + method.getName();
  }
}
