package io.outboxrelay.bench;

import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One of the relay's throughput lines ({@code relay.stats.interval}), as its log shows it: events
 * published in the interval, the batches they went in, and per batch the average time from send to
 * Kafka's last acknowledgement and the average time of the commit (in polling mode: the finishing
 * transaction that marks the batch's rows PUBLISHED). The relay times no claim: these are the
 * per-batch figures it has, and they reach only this line, not its {@code /metrics}.
 *
 * @param atMillis when the line was logged (the relay's wall clock, read in this JVM's time zone)
 * @param intervalMillis the interval the line covers, ending when it was logged (whole seconds)
 * @param published events published in the interval
 * @param batches batches in the interval
 * @param acknowledgeMillis average send → last acknowledgement per batch (NaN without batches)
 * @param commitMillis average commit (polling: finish) per batch (NaN without batches)
 */
record RelayStatsLine(
    long atMillis,
    long intervalMillis,
    long published,
    long batches,
    double acknowledgeMillis,
    double commitMillis) {

  private static final Pattern LINE =
      Pattern.compile(
          "^(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}) .* StatsReporter - .*published"
              + " (\\d+) events in (\\d+)s \\([\\d.]+/s; (?:no batches|(\\d+) batches, avg ([\\d.]+)"
              + " ms to acknowledge, ([\\d.]+) ms to commit)\\)");

  /**
   * The throughput lines of a relay's log, in order; other lines are skipped.
   *
   * @param log the log's text
   * @param zone the relay's time zone
   */
  static List<RelayStatsLine> parse(String log, ZoneId zone) {
    List<RelayStatsLine> lines = new ArrayList<>();
    for (String line : log.split("\n")) {
      Matcher m = LINE.matcher(line);
      if (m.find()) {
        long at = LocalDateTime.parse(m.group(1)).atZone(zone).toInstant().toEpochMilli();
        long published = Long.parseLong(m.group(2));
        long interval = Long.parseLong(m.group(3)) * 1000;
        if (m.group(4) == null) {
          lines.add(new RelayStatsLine(at, interval, published, 0, Double.NaN, Double.NaN));
        } else {
          lines.add(
              new RelayStatsLine(
                  at,
                  interval,
                  published,
                  Long.parseLong(m.group(4)),
                  Double.parseDouble(m.group(5)),
                  Double.parseDouble(m.group(6))));
        }
      }
    }
    return lines;
  }

  /**
   * The lines whose interval's middle lies in {@code [fromMillis, toMillis)} taken together: their
   * events and batches summed, the per-batch averages weighted by batches. The relay's intervals
   * run from its start, not from the caller's: by the middle, each line goes to the window that
   * holds most of its interval.
   *
   * @return the sum, covering {@code toMillis - fromMillis}, or null when no line's middle lies
   *     there
   */
  static RelayStatsLine between(List<RelayStatsLine> lines, long fromMillis, long toMillis) {
    long published = 0;
    long batches = 0;
    double ack = 0;
    double commit = 0;
    boolean any = false;
    for (RelayStatsLine l : lines) {
      long middle = l.atMillis - l.intervalMillis / 2;
      if (middle >= fromMillis && middle < toMillis) {
        any = true;
        published += l.published;
        if (l.batches > 0) {
          batches += l.batches;
          ack += l.acknowledgeMillis * l.batches;
          commit += l.commitMillis * l.batches;
        }
      }
    }
    if (!any) {
      return null;
    }
    long covered = toMillis - fromMillis;
    return batches == 0
        ? new RelayStatsLine(toMillis, covered, published, 0, Double.NaN, Double.NaN)
        : new RelayStatsLine(
            toMillis, covered, published, batches, ack / batches, commit / batches);
  }

  /** Events per batch; NaN without batches. */
  double eventsPerBatch() {
    return batches == 0 ? Double.NaN : (double) published / batches;
  }
}
