package dev.once.internal;

import dev.once.Tracing;
import dev.once.spi.PublishResult;
import dev.once.spi.Transport;
import java.util.List;

/** The spans of a batch: one per item, started by the tracing hook, or none when it is off. */
public final class Spans {
  private Spans() {}

  /** How a span of one item starts: {@code Tracing::send}, {@code Tracing::process}. */
  @FunctionalInterface
  public interface Start<T> {
    Tracing.Span start(Tracing tracing, String system, T item);
  }

  /**
   * One span per item, or null when {@code tracing} is {@link Tracing#NONE}: then nothing is
   * allocated, not even the transport's name.
   */
  public static <T> Tracing.Span[] start(
      Tracing tracing, Transport transport, List<T> items, Start<T> start) {
    if (tracing == Tracing.NONE) {
      return null;
    }
    String system = transport.name();
    Tracing.Span[] spans = new Tracing.Span[items.size()];
    for (int i = 0; i < spans.length; i++) {
      spans[i] = start.start(tracing, system, items.get(i));
    }
    return spans;
  }

  /**
   * Ends a relay batch's send spans (null: tracing is off): each one failed with {@code error}, or
   * refused where {@code result} did not confirm its message.
   */
  public static void endSends(Tracing.Span[] spans, PublishResult result, Throwable error) {
    if (spans == null) {
      return;
    }
    for (int i = 0; i < spans.length; i++) {
      if (error != null) {
        spans[i].error(error);
      } else if (!result.isConfirmed(i)) {
        spans[i].error(new PublishRefused());
      }
      spans[i].end();
    }
  }

  /**
   * What a send span records for a message the broker did not confirm (no reason: it may quote).
   */
  private static final class PublishRefused extends RuntimeException {
    PublishRefused() {
      super(null, null, false, false);
    }
  }
}
