package io.outboxrelay.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The pinned-xmin group's output: a row per window of each run (events visible per second, commit →
 * visible latency, the outbox table's tuples, size and vacuums, the oldest snapshot's age, the
 * claims' index entries per scan, the relay's events per batch and finish time), then a summary row
 * per run, and lines under the table. Not thread-safe.
 */
final class PinnedXminTable {

  private static final String HEADER =
      "| run | t (s) | events/s | p50 (ms) | p99 (ms) | max (ms) | live tuples | dead tuples |"
          + " size (MiB) | vacuums | xmin age | status-index entries/scan | events/batch |"
          + " finish (ms) |\n"
          + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";

  private final List<PinnedXminRun> runs = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private String conditions = "";

  /** The load and settings every run had, for the line above the table. */
  void conditions(String conditions) {
    this.conditions = conditions;
  }

  /** A line for under the table. */
  void note(String note) {
    notes.add(note);
  }

  void add(PinnedXminRun run) {
    runs.add(run);
  }

  boolean isEmpty() {
    return runs.isEmpty() && notes.isEmpty();
  }

  String render() {
    StringBuilder sb = new StringBuilder();
    if (!conditions.isEmpty()) {
      sb.append("Polling on PostgreSQL under a pinned xmin: ").append(conditions).append("\n\n");
    }
    if (!runs.isEmpty()) {
      sb.append(HEADER);
      for (PinnedXminRun run : runs) {
        for (PinnedXminRun.Window w : run.windows()) {
          row(
              sb,
              run.label(),
              String.format(Locale.ROOT, "%.0f", w.endSeconds()),
              w.eventsPerSecond(),
              w.latency(),
              w.end(),
              String.format(Locale.ROOT, "%,d", w.end().deadTuples()),
              w.vacuums(),
              w.end().oldestXminAge(),
              w.statusIndexTuplesPerScan(),
              w.relay());
        }
      }
      for (PinnedXminRun run : runs) {
        OutboxTableSample end = run.end();
        row(
            sb,
            "**" + run.label() + ", all**",
            String.format(
                Locale.ROOT, "%.0f", run.windows().get(run.windows().size() - 1).endSeconds()),
            run.eventsPerSecond(),
            run.latency(),
            end,
            String.format(Locale.ROOT, "max %,d", run.maxDeadTuples()),
            end.vacuums() - run.start().vacuums(),
            run.maxXminAge(),
            end.statusIndexTuplesPerScan(run.start()),
            run.relay());
      }
      sb.append('\n');
    }
    for (PinnedXminRun run : runs) {
      sb.append(
          String.format(
              Locale.ROOT,
              "- %s: %,d events written, %,d never seen; %,d became visible only after the load"
                  + " ended (the last %.1f s after it).%n",
              run.label(),
              run.written(),
              run.missing(),
              run.visibleAfterLoad(),
              run.drainSeconds()));
      run.notes()
          .forEach(n -> sb.append("- ").append(run.label()).append(": ").append(n).append('\n'));
    }
    notes.forEach(n -> sb.append("- ").append(n).append('\n'));
    return sb.toString();
  }

  private static void row(
      StringBuilder sb,
      String run,
      String t,
      double eventsPerSecond,
      Percentiles latency,
      OutboxTableSample end,
      String dead,
      long vacuums,
      long xminAge,
      double indexPerScan,
      RelayStatsLine relay) {
    sb.append("| ")
        .append(run)
        .append(" | ")
        .append(t)
        .append(" | ")
        .append(String.format(Locale.ROOT, "%,.0f", eventsPerSecond))
        .append(" | ")
        .append(number(latency.p50()))
        .append(" | ")
        .append(number(latency.p99()))
        .append(" | ")
        .append(number(latency.max()))
        .append(" | ")
        .append(String.format(Locale.ROOT, "%,d", end.liveTuples()))
        .append(" | ")
        .append(dead)
        .append(" | ")
        .append(String.format(Locale.ROOT, "%.1f", end.totalBytes() / 1048576.0))
        .append(" | ")
        .append(vacuums)
        .append(" | ")
        .append(String.format(Locale.ROOT, "%,d", xminAge))
        .append(" | ")
        .append(
            Double.isNaN(indexPerScan) ? "—" : String.format(Locale.ROOT, "%,.0f", indexPerScan))
        .append(" | ")
        .append(relay == null ? "—" : decimal(relay.eventsPerBatch()))
        .append(" | ")
        .append(relay == null ? "—" : decimal(relay.commitMillis()))
        .append(" |\n");
  }

  private static String number(double v) {
    return Double.isNaN(v) ? "—" : String.format(Locale.ROOT, "%,.0f", v);
  }

  private static String decimal(double v) {
    return Double.isNaN(v) ? "—" : String.format(Locale.ROOT, "%.1f", v);
  }
}
