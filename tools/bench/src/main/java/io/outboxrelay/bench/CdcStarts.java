package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.RelayProcess;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The starts of a CDC relay on a waiting backlog, with the relay stopped in between: from the
 * distribution the bench runs (as built), and from a copy of its {@code dist.tar.gz} unpacked in
 * the work directory, as an installation elsewhere, the two alternated. Reports for each the time
 * from the process start to the broker's append of the first event: the median, and the installed
 * copy's first start on its own (the one that would build the class data sharing archive, were none
 * packed for this Java).
 */
final class CdcStarts {

  /** The backlog each start finds waiting. */
  static final int BACKLOG = 1_000;

  private final BenchEnv env;

  CdcStarts(BenchEnv env) {
    this.env = env;
  }

  /** Where one copy's starts stand. */
  private static final class Series {
    private final String label;
    private final Path launcher;
    private final List<Double> firsts = new ArrayList<>();
    private final List<Double> readies = new ArrayList<>();

    private Series(String label, Path launcher) {
      this.label = label;
      this.launcher = launcher;
    }
  }

  /**
   * @param outbox the run's outbox, its relay stopped
   * @param config the relay's configuration
   * @param name the relay's process name prefix
   * @param starts how many starts of each copy
   */
  void run(ResultTable table, CdcBench.Outbox outbox, Path config, String name, int starts)
      throws Exception {
    Series built = new Series("built", ProjectFiles.relayLauncher());
    Path tarball = built.launcher.getParent().getParent().getParent().resolveSibling("dist.tar.gz");
    Series installed =
        Files.isRegularFile(tarball)
            ? new Series("installed", unpack(tarball, env.workDir().resolve("installed")))
            : null;
    long total = outbox.count();
    for (int i = 1; i <= starts; i++) {
      total = start(outbox, config, name + "-start" + i, built, total);
      if (installed != null) {
        total = start(outbox, config, name + "-installed" + i, installed, total);
      }
    }
    table.add(
        "CDC start to first event, median of " + starts + " starts",
        String.format("%.2f s", median(built.firsts)),
        "<= 1.0 s",
        String.format(
            "%s; %,d-event backlog each; first event after %s s; ready after %s s",
            built.launcher.getParent().getParent(),
            BACKLOG,
            seconds(built.firsts),
            seconds(built.readies)));
    if (installed == null) {
      table.add(
          "CDC start to first event, installed copy",
          "-",
          "-",
          "no " + tarball + " next to the distribution");
      return;
    }
    table.add(
        "CDC start to first event, installed copy, first start",
        String.format("%.2f s", installed.firsts.get(0)),
        "<= 1.0 s",
        String.format(
            "%s unpacked in %s; ready after %.2f s",
            tarball.getFileName(),
            installed.launcher.getParent().getParent(),
            installed.readies.get(0)));
    table.add(
        "CDC start to first event, installed copy, median of " + starts + " starts",
        String.format("%.2f s", median(installed.firsts)),
        "<= 1.0 s",
        String.format(
            "alternated with the built one's; first event after %s s; ready after %s s",
            seconds(installed.firsts), seconds(installed.readies)));
  }

  /**
   * Writes a backlog, starts the relay, waits for the backlog in Kafka, stops it; the new total.
   */
  private long start(CdcBench.Outbox outbox, Path config, String process, Series series, long total)
      throws Exception {
    Backlog.write(outbox.db(), total, BACKLOG);
    long target = total + BACKLOG;
    Thread.sleep(1000); // the backlog's binlog written and synced; the machine settles
    long startedMillis = System.currentTimeMillis();
    RelayProcess relay = env.startRelay(series.launcher, process, config);
    relay.awaitReady();
    series.readies.add((System.currentTimeMillis() - startedMillis) / 1e3);
    outbox.awaitCount(target);
    TopicCounter.AppendTimes appended = outbox.appendTimes(startedMillis);
    series.firsts.add((appended.first() - startedMillis) / 1e3);
    relay.process().terminate();
    relay.waitFor(Duration.ofSeconds(60));
    return target;
  }

  /** Unpacks the tarball with tar into a fresh {@code dir}; the copy's launcher. */
  private static Path unpack(Path tarball, Path dir) throws Exception {
    Files.createDirectories(dir);
    Process tar =
        new ProcessBuilder("tar", "-xzf", tarball.toString(), "-C", dir.toString())
            .inheritIO()
            .start();
    if (!tar.waitFor(120, TimeUnit.SECONDS) || tar.exitValue() != 0) {
      throw new IllegalStateException("tar could not unpack " + tarball + " into " + dir);
    }
    return dir.resolve("outbox-relay/bin/outbox-relay");
  }

  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  static String seconds(List<Double> values) {
    return String.join(", ", values.stream().map(v -> String.format("%.2f", v)).toList());
  }
}
