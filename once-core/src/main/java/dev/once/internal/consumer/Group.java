package dev.once.internal.consumer;

import dev.once.spi.Delivery;
import java.util.List;

/** Deliveries that run in one transaction; {@code level} -1 for a fresh batch. */
record Group(List<Delivery> members, int level) {
  boolean suspect() {
    return level >= 0;
  }
}
