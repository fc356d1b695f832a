package io.outboxrelay.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads a Linux process's CPU time and memory from /proc. */
final class ProcessStats {

  /** Clock ticks per second of /proc/<pid>/stat and /proc/stat (USER_HZ; 100 on Linux x86_64). */
  static final double TICKS_PER_SECOND = 100.0;

  private ProcessStats() {}

  /** User + system CPU seconds the process has used so far. */
  static double cpuSeconds(long pid) {
    String[] f = fields(pid); // state=0, ..., utime=11, stime=12
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
  }

  /**
   * CPU seconds a server and its child processes have used so far: its own, its exited children's
   * (which the kernel adds to the parent once it reaps them) and its live children's. For
   * PostgreSQL, whose every connection is a child process that ends with it, this counts the
   * backends of connections that came and went; for a one-process server it is {@link #cpuSeconds}.
   */
  static double treeCpuSeconds(long pid) {
    double total = withChildren(pid);
    try (var all = Files.list(Path.of("/proc"))) {
      for (Path dir : (Iterable<Path>) all::iterator) {
        String name = dir.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        try {
          String[] f = fields(Long.parseLong(name));
          // ppid is field 1 after "(comm) "
          if (Long.parseLong(f[1]) == pid) {
            total += withChildren(Long.parseLong(name));
          }
        } catch (IllegalStateException e) {
          // the process ended meanwhile
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot list /proc", e);
    }
    return total;
  }

  /** utime + stime + cutime + cstime of one process, in seconds. */
  private static double withChildren(long pid) {
    String[] f = fields(pid);
    return (Long.parseLong(f[11])
            + Long.parseLong(f[12])
            + Long.parseLong(f[13])
            + Long.parseLong(f[14]))
        / TICKS_PER_SECOND;
  }

  /** The fields of /proc/<pid>/stat after "(comm) ". */
  private static String[] fields(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    } catch (IOException e) {
      throw new IllegalStateException("cannot read /proc/" + pid + "/stat", e);
    }
  }

  /** CPU seconds per thread name (digits folded), for a breakdown of where the CPU went. */
  static java.util.Map<String, Double> cpuByThread(long pid) {
    java.util.Map<String, Double> byName = new java.util.TreeMap<>();
    try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        try {
          String stat = Files.readString(task.resolve("stat"));
          String name =
              stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replaceAll("\\d+", "N");
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          double cpu = (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
          byName.merge(name, cpu, Double::sum);
        } catch (IOException e) {
          // the thread ended meanwhile
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return byName;
  }

  /**
   * The CPU seconds each thread name used between two {@link #cpuByThread} readings, largest first,
   * leaving out threads that used less than 0.05 s: e.g. {@code " worker-N=1.20s kafka-N=0.40s"}.
   */
  static String cpuBreakdown(
      java.util.Map<String, Double> before, java.util.Map<String, Double> after) {
    StringBuilder breakdown = new StringBuilder();
    after.entrySet().stream()
        .map(
            e ->
                java.util.Map.entry(
                    e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0.0)))
        .filter(e -> e.getValue() >= 0.05)
        .sorted((a, b) -> Double.compare(b.getValue(), a.getValue()))
        .forEach(e -> breakdown.append(String.format(" %s=%.2fs", e.getKey(), e.getValue())));
    return breakdown.toString();
  }

  /** A field of /proc/<pid>/status in MiB, e.g. VmHWM (peak RSS) or VmRSS. */
  static double statusMiB(long pid, String field) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith(field + ":")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
        }
      }
      throw new IllegalStateException(field + " not in /proc/" + pid + "/status");
    } catch (IOException e) {
      throw new IllegalStateException("cannot read /proc/" + pid + "/status", e);
    }
  }
}
