package io.outboxrelay.bench;

import io.outboxrelay.relay.config.DeliveryGuarantee;
import io.outboxrelay.testsupport.outbox.Ledger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The exactly-once group's output: a column per {@code delivery.guarantee}, a row per figure, and a
 * column with exactly-once's figure as a share of at-least-once's in the same round. A cell gives
 * the median over the complete rounds and their range; a round in which an event never became
 * visible counts in no cell but the last rows'. Not thread-safe.
 */
final class GuaranteeTable {

  private static final DeliveryGuarantee ALO = DeliveryGuarantee.AT_LEAST_ONCE;
  private static final DeliveryGuarantee EOS = DeliveryGuarantee.EXACTLY_ONCE;

  private record Row(
      String label,
      String unit,
      ToDoubleFunction<GuaranteeRun> value,
      String format,
      String target) {}

  private final List<GuaranteeRun> runs = new ArrayList<>();
  private final List<GuaranteeFaultRun.Result> faultRuns = new ArrayList<>();
  private int backlog;
  private int rate;
  private long seconds;
  private int faultRate;
  private long faultGap;
  private Percentiles probe;

  /** The load of the runs, for the row labels. */
  void conditions(int backlog, int rate, long seconds, int faultRate, long faultGap) {
    this.backlog = backlog;
    this.rate = rate;
    this.seconds = seconds;
    this.faultRate = faultRate;
    this.faultGap = faultGap;
  }

  /** How long after their commits the consumer saw the probe transactions' records. */
  void probe(Percentiles millis) {
    this.probe = millis;
  }

  void add(GuaranteeRun run) {
    runs.add(run);
  }

  void addFaults(GuaranteeFaultRun.Result result) {
    faultRuns.add(result);
  }

  boolean isEmpty() {
    return runs.isEmpty() && faultRuns.isEmpty();
  }

  private List<Row> rows() {
    String load = String.format(Locale.ROOT, "at %,d events/s for %d s", rate, seconds);
    return List.of(
        new Row(
            String.format(
                Locale.ROOT, "drain of a %,d-event backlog, ready → last visible", backlog),
            "events/s",
            GuaranteeRun::drainRate,
            "%,.0f",
            "exactly-once ≥ 80% of at-least-once"),
        new Row(
            "relay process start → ready, backlog waiting",
            "s",
            GuaranteeRun::readySeconds,
            "%.2f",
            "-"),
        new Row(
            "relay CPU per 1,000 events, drain",
            "CPU ms",
            GuaranteeRun::drainCpuMsPer1000,
            "%.1f",
            "-"),
        new Row(
            "latency commit → visible " + load + ", p50",
            "ms",
            r -> r.visible().p50(),
            "%.0f",
            "-"),
        new Row(
            "latency commit → visible " + load + ", p99",
            "ms",
            r -> r.visible().p99(),
            "%.0f",
            "exactly-once ≤ 50 ms"),
        new Row(
            "latency commit → visible " + load + ", max",
            "ms",
            r -> r.visible().max(),
            "%.0f",
            "-"),
        new Row(
            "latency commit → broker append of the record, p99",
            "ms",
            r -> r.append().p99(),
            "%.0f",
            "-"),
        new Row(
            "relay CPU per 1,000 events, steady load",
            "CPU ms",
            GuaranteeRun::steadyCpuMsPer1000,
            "%.1f",
            "-"),
        new Row("steady load achieved", "events/s", GuaranteeRun::steadyRate, "%,.0f", "-"),
        new Row("relay peak RSS", "MiB", GuaranteeRun::peakRssMiB, "%.0f", "-"));
  }

  String render() {
    StringBuilder sb =
        new StringBuilder(
            "| figure | at-least-once | exactly-once | exactly-once / at-least-once | target |\n"
                + "|---|---|---|---|---|\n");
    if (!runs.isEmpty()) {
      for (Row row : rows()) {
        sb.append("| ")
            .append(row.label())
            .append(" (")
            .append(row.unit())
            .append(") | ")
            .append(cell(complete(ALO), row))
            .append(" | ")
            .append(cell(complete(EOS), row))
            .append(" | ")
            .append(ratio(row))
            .append(" | ")
            .append(row.target())
            .append(" |\n");
      }
      sb.append("| every event visible to the read_committed consumer, drain and steady load | ")
          .append(visible(ALO))
          .append(" | ")
          .append(visible(EOS))
          .append(" | - | each once |\n");
    }
    if (!faultRuns.isEmpty()) {
      String faults =
          String.format(
              Locale.ROOT,
              "fault run at %,d events/s (kill -9 ×%d, broker stop, MariaDB kill, relay SIGSTOP"
                  + " 30 s; %d s of load around each)",
              faultRate,
              GuaranteeFaultRun.KILLS,
              faultGap);
      sb.append("| ")
          .append(faults)
          .append(", read_committed: lost / duplicates / out of order | ")
          .append(faultCell(ALO, GuaranteeFaultRun.Result::committed))
          .append(" | ")
          .append(faultCell(EOS, GuaranteeFaultRun.Result::committed))
          .append(" | - | 0 lost; exactly-once 0 duplicates |\n");
      sb.append("| same run, read_uncommitted: lost / duplicates / out of order | ")
          .append(faultCell(ALO, GuaranteeFaultRun.Result::uncommitted))
          .append(" | ")
          .append(faultCell(EOS, GuaranteeFaultRun.Result::uncommitted))
          .append(" | - | - |\n");
    }
    sb.append('\n');
    notes(sb);
    return sb.toString();
  }

  private void notes(StringBuilder sb) {
    if (probe != null) {
      sb.append(
          String.format(
              Locale.ROOT,
              "- The consumer (isolation.level=read_committed, the client's fetch defaults) saw no"
                  + " record of an open transaction for 1 s; a transaction of one record, sent by"
                  + " the bench, was visible %.0f ms (median of %d; max %.0f) after"
                  + " commitTransaction() returned.%n",
              probe.p50(),
              probe.count(),
              probe.max()));
    }
    if (!runs.isEmpty()) {
      StringBuilder order = new StringBuilder();
      for (GuaranteeRun r : runs) {
        order
            .append(order.length() == 0 ? "" : ", ")
            .append(abbreviation(r.guarantee()) + r.round());
      }
      sb.append("- Runs in order: ").append(order).append(".\n");
    }
    for (GuaranteeFaultRun.Result f : faultRuns) {
      StringBuilder by = new StringBuilder();
      for (Map.Entry<String, Integer> e : f.duplicatesByFault().entrySet()) {
        by.append(by.length() == 0 ? "" : ", ").append(e.getKey()).append(' ').append(e.getValue());
      }
      sb.append(
          String.format(
              Locale.ROOT,
              "- Fault run %d, %s: %,d events; read_committed duplicates after each fault: %s.%n",
              f.run(),
              GuaranteeBench.configName(f.guarantee()),
              f.committed().expected(),
              by));
    }
  }

  private static String abbreviation(DeliveryGuarantee g) {
    return g == EOS ? "EOS" : "ALO";
  }

  private List<GuaranteeRun> complete(DeliveryGuarantee g) {
    return runs.stream().filter(r -> r.guarantee() == g && r.complete()).toList();
  }

  /** The median and the range of the runs' values; the value alone for one run. */
  static String cell(List<GuaranteeRun> rounds, Row row) {
    double[] values =
        rounds.stream().mapToDouble(row.value()).filter(v -> !Double.isNaN(v)).toArray();
    return spread(values, row.format(), "");
  }

  /**
   * {@code median (min–max)} of the values, or the value alone, or {@code -}.
   *
   * @param format a format for one value, e.g. {@code %,.0f}
   * @param suffix a format's text after each value ({@code %%} for a percent sign)
   */
  static String spread(double[] values, String format, String suffix) {
    if (values.length == 0) {
      return "-";
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    if (sorted.length == 1) {
      return String.format(Locale.ROOT, format + suffix, sorted[0]);
    }
    int n = sorted.length;
    double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    return String.format(
        Locale.ROOT,
        format + suffix + " (" + format + "–" + format + suffix + ")",
        median,
        sorted[0],
        sorted[n - 1]);
  }

  /** Exactly-once's value as a percentage of at-least-once's in the same round, over the rounds. */
  private String ratio(Row row) {
    List<Double> ratios = new ArrayList<>();
    for (GuaranteeRun e : complete(EOS)) {
      for (GuaranteeRun a : complete(ALO)) {
        double base = row.value().applyAsDouble(a);
        if (a.round() == e.round() && base > 0) {
          ratios.add(100 * row.value().applyAsDouble(e) / base);
        }
      }
    }
    return spread(
        ratios.stream().mapToDouble(Double::doubleValue).filter(v -> !Double.isNaN(v)).toArray(),
        "%.0f",
        "%%");
  }

  /** Whether every event was visible in every run, with the duplicates per run. */
  private String visible(DeliveryGuarantee g) {
    List<GuaranteeRun> of = runs.stream().filter(r -> r.guarantee() == g).toList();
    if (of.isEmpty()) {
      return "-";
    }
    List<String> duplicates = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    for (GuaranteeRun r : of) {
      duplicates.add(String.format(Locale.ROOT, "%,d", r.duplicates()));
      if (!r.complete()) {
        missing.add(
            String.format(
                Locale.ROOT,
                "round %d: %,d of %,d never visible",
                r.round(),
                r.missing(),
                r.backlog() + r.steadyEvents()));
      }
    }
    if (!missing.isEmpty()) {
      return "NO, figures of that round void: " + String.join("; ", missing);
    }
    return "yes, in each run; duplicates " + String.join(", ", duplicates);
  }

  private String faultCell(
      DeliveryGuarantee g,
      java.util.function.Function<GuaranteeFaultRun.Result, Ledger.Result> which) {
    List<String> cells = new ArrayList<>();
    for (GuaranteeFaultRun.Result f : faultRuns) {
      if (f.guarantee() == g) {
        Ledger.Result r = which.apply(f);
        cells.add(
            String.format(Locale.ROOT, "%d / %,d / %d", r.lost(), r.duplicates(), r.outOfOrder()));
      }
    }
    return cells.isEmpty() ? "-" : String.join("; ", cells);
  }
}
