package io.outboxrelay.bench;

import java.util.Arrays;

/** Percentiles of a set of measurements. */
record Percentiles(long count, double p50, double p99, double max) {

  static Percentiles of(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    if (v.length == 0) {
      return new Percentiles(0, Double.NaN, Double.NaN, Double.NaN);
    }
    return new Percentiles(v.length, at(v, 0.50), at(v, 0.99), v[v.length - 1]);
  }

  private static double at(double[] sorted, double q) {
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }
}
