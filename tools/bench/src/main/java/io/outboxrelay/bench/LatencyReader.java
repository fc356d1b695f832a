package io.outboxrelay.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Reads topics whose record timestamps are the broker's append time (see {@link
 * TopicCounter#createLogAppendTimeTopics}) from the beginning up to their current end, and gives
 * the latency of each timed event: append time minus commit time. Records of events without a
 * commit time (a backlog published before) are skipped.
 */
final class LatencyReader {

  private LatencyReader() {}

  /** The timed events found: commit time (ms, wall clock) and latency (ms), index by index. */
  record Samples(long[] commitMillis, double[] latencyMillis) {

    Percentiles percentiles() {
      return Percentiles.of(latencyMillis);
    }

    /**
     * The latencies cut into windows by commit time, from the first commit: a spike that recurs
     * every few seconds shows in the windows' p99 while the overall p99 hides it.
     */
    List<Percentiles> windows(Duration window) {
      if (commitMillis.length == 0) {
        return List.of();
      }
      long first = Arrays.stream(commitMillis).min().orElseThrow();
      long last = Arrays.stream(commitMillis).max().orElseThrow();
      long width = window.toMillis();
      int count = (int) ((last - first) / width) + 1;
      List<List<Double>> byWindow = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        byWindow.add(new ArrayList<>());
      }
      for (int i = 0; i < commitMillis.length; i++) {
        byWindow.get((int) ((commitMillis[i] - first) / width)).add(latencyMillis[i]);
      }
      List<Percentiles> result = new ArrayList<>(count);
      for (List<Double> w : byWindow) {
        result.add(Percentiles.of(w.stream().mapToDouble(Double::doubleValue).toArray()));
      }
      return result;
    }
  }

  /**
   * @param commitMillis commit time (ms, wall clock) by event id, the record header {@code id}
   * @return the latencies in milliseconds of the timed events found
   */
  static Percentiles read(String bootstrap, List<String> topics, Map<String, Long> commitMillis) {
    return readSamples(bootstrap, topics, commitMillis).percentiles();
  }

  /**
   * @param commitMillis commit time (ms, wall clock) by event id, the record header {@code id}
   * @return the timed events found, with their commit times
   */
  static Samples readSamples(
      String bootstrap, List<String> topics, Map<String, Long> commitMillis) {
    double[] values = new double[commitMillis.size()];
    long[] commits = new long[commitMillis.size()];
    int[] found = {0};
    TopicRecords.readAll(
        bootstrap,
        topics,
        r -> {
          String id = TopicRecords.id(r);
          Long committed = id == null ? null : commitMillis.get(id);
          int n = found[0];
          if (committed != null && n < values.length) {
            commits[n] = committed;
            values[n] = r.timestamp() - committed;
            found[0]++;
          }
        });
    int n = found[0];
    return new Samples(Arrays.copyOf(commits, n), Arrays.copyOf(values, n));
  }

  /**
   * One line per window for the log, and a compact list for the table: {@code "4, 5, 22, 4"}.
   *
   * @return the windows' p99 in milliseconds, in order
   */
  static String p99s(List<Percentiles> windows) {
    StringBuilder sb = new StringBuilder();
    for (Percentiles w : windows) {
      if (sb.length() > 0) {
        sb.append(", ");
      }
      sb.append(String.format("%.0f", w.p99()));
    }
    return sb.toString();
  }

  /** The largest p99 of the windows holding at least {@code minCount} events. */
  static double maxP99(List<Percentiles> windows, long minCount) {
    return windows.stream()
        .filter(w -> w.count() >= minCount)
        .mapToDouble(Percentiles::p99)
        .max()
        .orElse(Double.NaN);
  }
}
