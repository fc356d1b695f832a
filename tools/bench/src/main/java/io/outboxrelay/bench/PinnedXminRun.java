package io.outboxrelay.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * One run of the pinned-xmin group, cut into the windows between its table samples: the first
 * sample is taken as the load starts, the others every {@code --sample-seconds} and as it ends. A
 * window's events/s counts the load's events that became visible to the consumer in it; its
 * latencies are those of the events committed in it (commit → visible, whenever they became
 * visible). The summary counts the events visible while the load ran. Immutable.
 *
 * @param label {@code unpinned} or {@code pinned}
 * @param start the table sample taken as the load started
 * @param windows the windows, in order
 * @param eventsPerSecond events visible from the load's start to its end, per second
 * @param latency commit → visible of every event seen
 * @param written events the load committed
 * @param missing events committed that the consumer never saw
 * @param visibleAfterLoad events that became visible only after the load ended
 * @param drainSeconds from the load's end to the last event visible (0 when none was late)
 * @param relay the relay's throughput lines logged during the load, taken together; null if none
 * @param notes what else happened in the run, for the lines under the table
 */
record PinnedXminRun(
    String label,
    OutboxTableSample start,
    List<Window> windows,
    double eventsPerSecond,
    Percentiles latency,
    long written,
    long missing,
    long visibleAfterLoad,
    double drainSeconds,
    RelayStatsLine relay,
    List<String> notes) {

  /**
   * One window of a run.
   *
   * @param endSeconds the window's end, seconds after the load started
   * @param eventsPerSecond load events that became visible in the window, per second
   * @param latency commit → visible of the events committed in the window
   * @param end the table sample at the window's end
   * @param vacuums VACUUMs of the table that ended in the window
   * @param statusIndexTuplesPerScan index entries per scan of the claims' index in the window
   * @param relay the relay's throughput lines logged in the window, taken together; null if none
   */
  record Window(
      double endSeconds,
      double eventsPerSecond,
      Percentiles latency,
      OutboxTableSample end,
      long vacuums,
      double statusIndexTuplesPerScan,
      RelayStatsLine relay) {}

  /**
   * Cuts a run into windows.
   *
   * @param samples the table samples, at least two: the load's start, then each window's end
   * @param loadEndMillis when the load's last transaction committed
   * @param commitMillis commit time of each event of the load, by event id
   * @param visibleMillis when the consumer first saw an event, by id; -1 when it never did
   * @param relayLines the relay's throughput lines
   * @param notes lines for under the table
   */
  static PinnedXminRun of(
      String label,
      List<OutboxTableSample> samples,
      long loadEndMillis,
      Map<String, Long> commitMillis,
      ToLongFunction<String> visibleMillis,
      List<RelayStatsLine> relayLines,
      List<String> notes) {
    if (samples.size() < 2) {
      throw new IllegalArgumentException("a run needs at least two samples, got " + samples.size());
    }
    int count = samples.size() - 1;
    long start = samples.get(0).atMillis();
    long[] visibleIn = new long[count];
    List<List<Double>> latencies = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      latencies.add(new ArrayList<>());
    }
    List<Double> all = new ArrayList<>();
    long missing = 0;
    long duringLoad = 0;
    long afterLoad = 0;
    long lastVisible = loadEndMillis;
    for (Map.Entry<String, Long> e : commitMillis.entrySet()) {
      long visible = visibleMillis.applyAsLong(e.getKey());
      if (visible < 0) {
        missing++;
        continue;
      }
      double latency = visible - e.getValue();
      all.add(latency);
      latencies.get(window(samples, e.getValue())).add(latency);
      lastVisible = Math.max(lastVisible, visible);
      if (visible >= loadEndMillis) {
        afterLoad++;
      } else {
        duringLoad++;
      }
      if (visible >= start && visible < samples.get(count).atMillis()) {
        visibleIn[window(samples, visible)]++;
      }
    }
    List<Window> windows = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      OutboxTableSample from = samples.get(i);
      OutboxTableSample to = samples.get(i + 1);
      double seconds = Math.max(0.001, (to.atMillis() - from.atMillis()) / 1e3);
      windows.add(
          new Window(
              (to.atMillis() - start) / 1e3,
              visibleIn[i] / seconds,
              Percentiles.of(toArray(latencies.get(i))),
              to,
              to.vacuums() - from.vacuums(),
              to.statusIndexTuplesPerScan(from),
              RelayStatsLine.between(relayLines, from.atMillis(), to.atMillis())));
    }
    double loadSeconds = Math.max(0.001, (loadEndMillis - start) / 1e3);
    return new PinnedXminRun(
        label,
        samples.get(0),
        List.copyOf(windows),
        duringLoad / loadSeconds,
        Percentiles.of(toArray(all)),
        commitMillis.size(),
        missing,
        afterLoad,
        afterLoad == 0 ? 0 : (lastVisible - loadEndMillis) / 1e3,
        RelayStatsLine.between(relayLines, start, samples.get(count).atMillis()),
        List.copyOf(notes));
  }

  /** The window a moment falls in; moments before the first or after the last go to that one. */
  private static int window(List<OutboxTableSample> samples, long millis) {
    int last = samples.size() - 2;
    for (int i = 0; i < last; i++) {
      if (millis < samples.get(i + 1).atMillis()) {
        return i;
      }
    }
    return last;
  }

  private static double[] toArray(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /** The most dead tuples a sample saw. */
  long maxDeadTuples() {
    return windows.stream().mapToLong(w -> w.end().deadTuples()).max().orElse(0);
  }

  /** The table sample at the load's end. */
  OutboxTableSample end() {
    return windows.get(windows.size() - 1).end();
  }

  /** The oldest snapshot's age at its largest, in transactions. */
  long maxXminAge() {
    return windows.stream().mapToLong(w -> w.end().oldestXminAge()).max().orElse(0);
  }
}
