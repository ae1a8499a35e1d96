package dev.once.bench.e2e;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import software.amazon.awssdk.services.sqs.SqsAsyncClient;

/**
 * The SQS client of a bench, counting its requests by operation: Once's transport and ceiling C's
 * hand-written code both run on it, so a phase's requests per event say where a difference comes
 * from. Each call of the SDK's interface counts once (its builder variants call the real client
 * directly, past the count).
 */
final class SqsRequests {
  /** The operations of the data path, in the order a message meets them. */
  static final List<String> DATA_PATH =
      List.of(
          "sendMessageBatch",
          "receiveMessage",
          "deleteMessageBatch",
          "changeMessageVisibilityBatch");

  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
  private final SqsAsyncClient client;

  SqsRequests(SqsAsyncClient real) {
    this.client =
        (SqsAsyncClient)
            Proxy.newProxyInstance(
                SqsAsyncClient.class.getClassLoader(),
                new Class<?>[] {SqsAsyncClient.class},
                (proxy, method, args) -> {
                  if (method.getDeclaringClass() != Object.class) {
                    counts.computeIfAbsent(method.getName(), n -> new LongAdder()).increment();
                  }
                  try {
                    return method.invoke(real, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
  }

  SqsAsyncClient client() {
    return client;
  }

  /** The requests so far, by operation. */
  Map<String, Long> snapshot() {
    Map<String, Long> s = new LinkedHashMap<>();
    counts.forEach((op, n) -> s.put(op, n.sum()));
    return s;
  }

  /**
   * The data path's requests per event since {@code before}, keyed {@code <prefix><operation>}
   * (e.g. {@code sqs_once_receiveMessage}); rounded to 3 decimals.
   */
  Map<String, Object> perEvent(Map<String, Long> before, long events, String prefix) {
    Map<String, Object> out = new LinkedHashMap<>();
    Map<String, Long> now = snapshot();
    for (String op : DATA_PATH) {
      long n = now.getOrDefault(op, 0L) - before.getOrDefault(op, 0L);
      out.put(prefix + op, BenchReport.round3((double) n / Math.max(1, events)));
    }
    return out;
  }
}
