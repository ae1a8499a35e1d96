package dev.once.test;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The log lines written to standard error (where slf4j-simple writes in tests) while open, each
 * with the time it was written, still passed on to the real standard error: to count what the
 * engine logs during a fault (a hot loop shows as thousands of lines).
 */
public final class LogLines implements AutoCloseable {
  /** A line and when it was written ({@link System#nanoTime()}). */
  public record Line(long nanos, String text) {}

  private final PrintStream original;
  private final List<Line> lines = new CopyOnWriteArrayList<>();

  private LogLines() {
    this.original = System.err;
    System.setErr(new PrintStream(new Tee(), true, StandardCharsets.UTF_8));
  }

  public static LogLines capture() {
    return new LogLines();
  }

  /** Lines containing {@code fragment} written between the two {@link System#nanoTime()}s. */
  public long count(String fragment, long fromNanos, long toNanos) {
    return lines.stream()
        .filter(l -> l.nanos() >= fromNanos && l.nanos() <= toNanos)
        .filter(l -> l.text().contains(fragment))
        .count();
  }

  /** Every line containing {@code fragment}. */
  public List<String> matching(String fragment) {
    return lines.stream().map(Line::text).filter(t -> t.contains(fragment)).toList();
  }

  @Override
  public void close() {
    System.setErr(original);
  }

  private final class Tee extends OutputStream {
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    @Override
    public synchronized void write(int b) {
      original.write(b);
      if (b == '\n') {
        lines.add(new Line(System.nanoTime(), line.toString(StandardCharsets.UTF_8)));
        line.reset();
      } else {
        line.write(b);
      }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      for (int i = off; i < off + len; i++) {
        write(b[i]);
      }
    }

    @Override
    public void flush() {
      original.flush();
    }
  }
}
