package io.outboxrelay.bench;

import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How long the relay waited for Kafka's acknowledgement of a batch, read from its stats lines
 * ({@code published N events in Ts (...; B batches, avg X ms to acknowledge, ...)}): the part of
 * the commit-to-append latency spent between the hand-over to the producer and the ack. Only the
 * lines whose whole interval lies inside the window count.
 *
 * @param batches the batches in those intervals
 * @param events the events in them
 * @param avgAckMillis the average time from a batch's hand-over to its last ack, in ms
 */
record AckTimes(long batches, long events, double avgAckMillis) {

  private static final Pattern STATS =
      Pattern.compile(
          "^(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}) .*published (\\d+) events in"
              + " (\\d+)s \\([^;]*; (\\d+) batches, avg ([0-9.]+) ms to acknowledge",
          Pattern.MULTILINE);

  /**
   * Reads the stats lines of a relay log that fall inside a window.
   *
   * @param log the relay's log (timestamps in this machine's zone, as the relay writes them)
   * @param fromMillis the window's start, epoch ms
   * @param toMillis the window's end, epoch ms
   * @return the batches, events and batch-weighted average ack time; zero batches when no line fits
   */
  static AckTimes within(String log, long fromMillis, long toMillis) {
    long batches = 0;
    long events = 0;
    double ackMillis = 0;
    Matcher m = STATS.matcher(log);
    while (m.find()) {
      long at =
          LocalDateTime.parse(m.group(1)).atZone(ZoneId.systemDefault()).toInstant().toEpochMilli();
      long from = at - Duration.ofSeconds(Long.parseLong(m.group(3))).toMillis();
      if (from < fromMillis || at > toMillis) {
        continue;
      }
      long b = Long.parseLong(m.group(4));
      batches += b;
      events += Long.parseLong(m.group(2));
      ackMillis += b * Double.parseDouble(m.group(5));
    }
    return new AckTimes(batches, events, batches == 0 ? 0 : ackMillis / batches);
  }

  /** For the table's notes. */
  String describe() {
    if (batches == 0) {
      return "no stats interval fell inside the load (a longer --seconds gives one)";
    }
    return String.format(
        "average from a batch's hand-over to the producer to its last ack, over %,d batches of"
            + " %.1f events (the relay's stats intervals inside the load)",
        batches, (double) events / batches);
  }
}
