package dev.once.internal.consumer;

import dev.once.spi.Delivery;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Deliveries that run in one transaction; {@code level} -1 for a fresh batch.
 *
 * <p>The members are copied into one list class whatever their number: {@code List.copyOf} gave a
 * group of one or two another class than a larger one, and the JIT, having compiled the consumer's
 * loops for one, threw the compiled transaction away when the other came (a paced run's batches are
 * of both sizes; {@code docs/PERFORMANCE.md}, "One list class for a group's members").
 */
record Group(List<Delivery> members, int level) {
  Group {
    members = Collections.unmodifiableList(new ArrayList<>(members));
  }

  boolean suspect() {
    return level >= 0;
  }
}
