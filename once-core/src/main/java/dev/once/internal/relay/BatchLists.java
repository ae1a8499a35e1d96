package dev.once.internal.relay;

import dev.once.spi.PublishResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

/**
 * The lists a relay batch makes of its rows, without streams: at a paced rate a batch is one event,
 * and a stream's pipeline objects were more than the list it made.
 */
final class BatchLists {
  private BatchLists() {}

  /** {@code f} of each of {@code rows}, in order. */
  static <R, T> List<T> map(List<R> rows, Function<R, T> f) {
    Object[] out = new Object[rows.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = f.apply(rows.get(i));
    }
    @SuppressWarnings("unchecked")
    List<T> list = (List<T>) Arrays.asList(out);
    return Collections.unmodifiableList(list);
  }

  /** The rows of {@code rows} that {@code result} confirms; {@code rows} itself when all are. */
  static <R> List<R> confirmed(List<R> rows, PublishResult result) {
    int n = rows.size();
    int i = 0;
    while (i < n && result.isConfirmed(i)) {
      i++;
    }
    if (i == n) {
      return rows;
    }
    List<R> confirmed = new ArrayList<>(n);
    for (int j = 0; j < n; j++) {
      if (result.isConfirmed(j)) {
        confirmed.add(rows.get(j));
      }
    }
    return confirmed;
  }
}
