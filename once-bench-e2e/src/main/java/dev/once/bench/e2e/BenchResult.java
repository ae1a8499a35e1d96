package dev.once.bench.e2e;

import java.io.PrintStream;
import java.util.Map;

/** What one bench run measured: its figures as one JSON object or as text, and whether it held. */
public interface BenchResult {
  /** The figures, in the order they are printed. */
  Map<String, Object> json();

  /** The figures for a person. */
  void print(PrintStream out);

  /** False when the run saw a duplicate effect (the command exits 1). */
  boolean ok();

  /** Figures printed one per line, names padded to {@code width}. */
  record Fields(Map<String, Object> json, int width, boolean ok) implements BenchResult {
    @Override
    public void print(PrintStream out) {
      json.forEach((k, v) -> out.printf("  %-" + width + "s %s%n", k, v));
    }
  }
}
