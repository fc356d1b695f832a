package io.outboxrelay.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * The peers group's output: one column per pipeline, one row per figure, in the order of the
 * reference page's table (docs/benchmarks.md). A cell lists each round's value (the median and the
 * range from four rounds on); a round whose audit found an event missing or differing from its row
 * counts in no cell but the last row's. Not thread-safe.
 */
final class PeerTable {

  private record Row(
      String label, String unit, ToDoubleFunction<PeerResult> value, String format) {}

  private final Map<Peer, List<PeerResult>> results = new LinkedHashMap<>();
  private final Map<Peer, String> setups = new LinkedHashMap<>();
  private final Map<Peer, String> unavailable = new LinkedHashMap<>();
  private final List<String> notes = new ArrayList<>();
  private final String title;
  private int backlog;
  private int rate;
  private long seconds;

  /** A table without a title line (the peers group's). */
  PeerTable() {
    this(null);
  }

  /**
   * @param title a line printed above the table, or {@code null} for none
   */
  PeerTable(String title) {
    this.title = title;
  }

  /** The load every pipeline gets, for the row labels. */
  void conditions(int backlog, int rate, long seconds) {
    this.backlog = backlog;
    this.rate = rate;
    this.seconds = seconds;
  }

  /** What runs in a pipeline's column, for the lines under the table. */
  void setup(Peer peer, String setup) {
    setups.put(peer, setup);
    results.putIfAbsent(peer, new ArrayList<>());
  }

  /** A pipeline that could not run, and why, for the lines under the table. */
  void unavailable(Peer peer, String reason) {
    unavailable.put(peer, reason);
  }

  /** A line printed under the table after the pipelines' lines (a target and how it went). */
  void note(String line) {
    notes.add(line);
  }

  /**
   * The median of a figure over a pipeline's complete rounds (those whose audit found every event
   * as its row says).
   *
   * @return the median, or {@code NaN} when no complete round has the figure
   */
  double median(Peer peer, ToDoubleFunction<PeerResult> figure) {
    double[] v = values(results.getOrDefault(peer, List.of()), figure);
    if (v.length == 0) {
      return Double.NaN;
    }
    Arrays.sort(v);
    int mid = v.length / 2;
    return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
  }

  /**
   * The highest value of a figure over a pipeline's complete rounds.
   *
   * @return the highest, or {@code NaN} when no complete round has the figure
   */
  double max(Peer peer, ToDoubleFunction<PeerResult> figure) {
    return Arrays.stream(values(results.getOrDefault(peer, List.of()), figure))
        .max()
        .orElse(Double.NaN);
  }

  private static double[] values(List<PeerResult> rounds, ToDoubleFunction<PeerResult> figure) {
    return rounds.stream()
        .filter(r -> r.audit().complete())
        .mapToDouble(figure)
        .filter(v -> !Double.isNaN(v))
        .toArray();
  }

  void add(PeerResult result) {
    results.computeIfAbsent(result.peer(), p -> new ArrayList<>()).add(result);
  }

  boolean isEmpty() {
    return results.values().stream().allMatch(List::isEmpty);
  }

  private List<Row> rows() {
    String load = String.format(Locale.ROOT, "at %,d events/s for %d s", rate, seconds);
    return List.of(
        new Row(
            String.format(Locale.ROOT, "start to first event, %,d-event backlog waiting", backlog),
            "s",
            PeerResult::firstEventSeconds,
            "%.2f"),
        new Row(
            "drain of the backlog, from its first event",
            "events/s",
            PeerResult::drainRate,
            "%,.0f"),
        new Row(
            "drain of the backlog, process start included",
            "events/s",
            PeerResult::drainWithStartRate,
            "%,.0f"),
        new Row(
            "latency commit → broker append " + load + ", p50",
            "ms",
            r -> r.audit().latency().p50(),
            "%.0f"),
        new Row(
            "latency commit → broker append " + load + ", p99",
            "ms",
            r -> r.audit().latency().p99(),
            "%.0f"),
        new Row("peak RSS of the pipeline's JVM", "MiB", PeerResult::peakRssMiB, "%.0f"),
        new Row(
            "CPU while idle (" + PeerBench.IDLE.toSeconds() + " s without events)",
            "% of a core",
            PeerResult::idleCorePercent,
            "%.1f"),
        new Row("CPU per 100k events, drain", "CPU s", PeerResult::drainCpuPer100k, "%.1f"),
        new Row(
            "the machine's CPU per event during the drain, all processes",
            "µs",
            PeerResult::drainMachineMicrosPerEvent,
            "%.0f"),
        new Row(
            "the machine's CPU per event during the drain, the database's processes",
            "µs",
            PeerResult::drainDatabaseMicrosPerEvent,
            "%.0f"),
        new Row("CPU per 100k events, steady load", "CPU s", PeerResult::steadyCpuPer100k, "%.1f"),
        new Row(
            "the machine during the steady load, all processes (of "
                + Runtime.getRuntime().availableProcessors()
                + ")",
            "cores busy",
            PeerResult::steadyMachineCores,
            "%.2f"),
        new Row(
            "the machine during the steady load, the database's processes",
            "cores busy",
            PeerResult::steadyDatabaseCores,
            "%.2f"),
        new Row(
            "CPU from process start to first event", "CPU s", PeerResult::startCpuSeconds, "%.1f"));
  }

  String render() {
    List<Peer> peers = new ArrayList<>(results.keySet());
    StringBuilder sb = new StringBuilder(title == null ? "" : title + "\n\n");
    sb.append("| figure |");
    peers.forEach(p -> sb.append(' ').append(p.label()).append(" |"));
    sb.append("\n|---|").append("---|".repeat(peers.size())).append('\n');
    for (Row row : rows()) {
      line(sb, row.label() + " (" + row.unit() + ")", peers, list -> cell(list, row));
    }
    line(sb, "every event published, by id, as its row", peers, PeerTable::published);
    sb.append('\n');
    setups.forEach(
        (peer, setup) ->
            sb.append("- ").append(peer.label()).append(": ").append(setup).append('\n'));
    unavailable.forEach(
        (peer, reason) ->
            sb.append("- ").append(peer.label()).append(": not run, ").append(reason).append('\n'));
    notes.forEach(n -> sb.append("- ").append(n).append('\n'));
    return sb.toString();
  }

  private void line(
      StringBuilder sb, String label, List<Peer> peers, Function<List<PeerResult>, String> cell) {
    sb.append("| ").append(label).append(" |");
    for (Peer p : peers) {
      sb.append(' ').append(cell.apply(results.get(p))).append(" |");
    }
    sb.append('\n');
  }

  /** Each complete round's value; from four rounds on, the median and the range. */
  private static String cell(List<PeerResult> rounds, Row row) {
    double[] values = values(rounds, row.value());
    String f = row.format();
    if (values.length == 0) {
      return "-";
    }
    if (values.length < 4) {
      List<String> each = new ArrayList<>();
      for (double v : values) {
        each.add(String.format(Locale.ROOT, f, v));
      }
      return String.join(", ", each);
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return String.format(
        Locale.ROOT,
        f + " (" + f + "–" + f + ")",
        sorted[sorted.length / 2],
        sorted[0],
        sorted[sorted.length - 1]);
  }

  /**
   * Whether every event was found by its id, as its row says, in every round, with the duplicates
   * per round; else per round how many are missing or differ (that round's figures are left out of
   * the other cells).
   */
  private static String published(List<PeerResult> rounds) {
    if (rounds.isEmpty()) {
      return "-";
    }
    List<String> duplicates = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (PeerResult r : rounds) {
      TopicAudit a = r.audit();
      duplicates.add(String.format(Locale.ROOT, "%,d", a.duplicates()));
      if (!a.complete()) {
        missing.add(
            String.format(
                Locale.ROOT,
                "round %d: %,d of %,d missing, %,d differing from their rows",
                r.round(),
                a.missing(),
                1L + r.backlog() + r.steadyEvents(),
                a.differing()));
      }
    }
    if (!missing.isEmpty()) {
      return "NO, figures of that round void: " + String.join("; ", missing);
    }
    return String.format(
        Locale.ROOT,
        "yes, all %,d in each round; duplicates %s",
        1L + rounds.get(0).backlog() + rounds.get(0).steadyEvents(),
        String.join(", ", duplicates));
  }
}
