package dev.once.bench.e2e;

/** Nearest-rank percentiles of a sorted array. */
final class Percentiles {
  private Percentiles() {}

  static long of(long[] sorted, double percentile) {
    if (sorted.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(percentile / 100.0 * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }
}
