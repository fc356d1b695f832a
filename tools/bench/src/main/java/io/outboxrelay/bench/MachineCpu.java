package io.outboxrelay.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where the whole machine's CPU went over a span: how many cores were busy, and how much of that
 * each process of the stack used (the relay, the broker, the database, the benchmark itself). On 2
 * cores shared by all of them, this is what bounds a drain or a start: a process that uses a third
 * of the busy CPU can at most make the span a third shorter by becoming free.
 *
 * <p>Linux only: reads {@code /proc/stat} and {@code /proc/<pid>/stat}, in USER_HZ ticks.
 */
final class MachineCpu {

  /**
   * One reading.
   *
   * @param busy seconds all cores spent in user, nice, system, irq and softirq time
   * @param steal seconds the hypervisor ran something else while a core of this machine wanted to
   *     run
   * @param processes CPU seconds per process name; 0 for one that has not started yet
   * @param nanos when, by {@link System#nanoTime()}
   */
  record Reading(double busy, double steal, Map<String, Double> processes, long nanos) {}

  private final Map<String, Long> pids;

  /**
   * @param pids the processes to account for, by the name to print; a pid of 0 or less is counted
   *     as 0 CPU seconds (a process that does not exist yet)
   */
  MachineCpu(Map<String, Long> pids) {
    this.pids = new LinkedHashMap<>(pids);
  }

  Reading read() {
    long nanos = System.nanoTime();
    Map<String, Double> cpu = new LinkedHashMap<>();
    pids.forEach((name, pid) -> cpu.put(name, pid > 0 ? ProcessStats.cpuSeconds(pid) : 0.0));
    String line;
    try (var lines = Files.lines(Path.of("/proc/stat"))) {
      line = lines.findFirst().orElseThrow();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read /proc/stat", e);
    }
    // cpu  user nice system idle iowait irq softirq steal guest guest_nice
    String[] f = line.trim().split("\\s+");
    long busy =
        Long.parseLong(f[1])
            + Long.parseLong(f[2])
            + Long.parseLong(f[3])
            + Long.parseLong(f[6])
            + Long.parseLong(f[7]);
    long steal = f.length > 8 ? Long.parseLong(f[8]) : 0;
    return new Reading(
        busy / ProcessStats.TICKS_PER_SECOND, steal / ProcessStats.TICKS_PER_SECOND, cpu, nanos);
  }

  /**
   * Cores busy between two readings, e.g. {@code "1.92 of 2 cores"}.
   *
   * @return the figure for the table's result column
   */
  static String cores(Reading from, Reading to) {
    double seconds = (to.nanos() - from.nanos()) / 1e9;
    return String.format(
        "%.2f of %d cores",
        (to.busy() - from.busy()) / seconds, Runtime.getRuntime().availableProcessors());
  }

  /**
   * Each process's share of the busy CPU between two readings, with the rest (everything else the
   * machine ran) and the steal: {@code "relay 1.05 (55%), broker 0.40 (21%), ..."} in cores.
   *
   * @param perEvent events in the span, to give each share in µs per event too; 0 for none
   */
  static String shares(Reading from, Reading to, long perEvent) {
    double seconds = (to.nanos() - from.nanos()) / 1e9;
    double busy = to.busy() - from.busy();
    StringBuilder out = new StringBuilder();
    double accounted = 0;
    for (Map.Entry<String, Double> e : to.processes().entrySet()) {
      double used = e.getValue() - from.processes().getOrDefault(e.getKey(), 0.0);
      accounted += used;
      append(out, e.getKey(), used, busy, seconds, perEvent);
    }
    append(out, "the rest", Math.max(0, busy - accounted), busy, seconds, perEvent);
    out.append(String.format("; steal %.2f cores", (to.steal() - from.steal()) / seconds));
    return out.toString();
  }

  private static void append(
      StringBuilder out, String name, double used, double busy, double seconds, long events) {
    if (!out.isEmpty()) {
      out.append(", ");
    }
    out.append(
        String.format("%s %.2f (%.0f%%", name, used / seconds, busy > 0 ? 100 * used / busy : 0.0));
    if (events > 0) {
      out.append(String.format(", %.0f µs/event", used * 1e6 / events));
    }
    out.append(')');
  }
}
