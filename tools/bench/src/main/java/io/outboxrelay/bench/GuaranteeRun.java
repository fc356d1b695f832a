package io.outboxrelay.bench;

import io.outboxrelay.relay.config.DeliveryGuarantee;

/**
 * The figures of one relay run of the exactly-once group: one {@code delivery.guarantee}, one
 * round; a drain of a backlog, then a steady load, on the same relay process, all read by a {@link
 * VisibleReader}. The figures count only when every event was visible ({@link #complete()}).
 *
 * @param guarantee the relay's {@code delivery.guarantee}
 * @param round 1, 2, ...
 * @param backlog the events of the backlog
 * @param readySeconds from the relay's process start to its ready line (with exactly-once, the
 *     term's {@code initTransactions()} and the read of the progress topic are before it)
 * @param drainSeconds from the relay's ready line to the last backlog event visible
 * @param drainCpuSeconds the relay's CPU over the same span
 * @param steadyEvents events the steady load wrote
 * @param steadySeconds how long the steady load wrote
 * @param steadyCpuSeconds the relay's CPU from the steady load's start to its last event visible
 * @param visible latency of the steady load's events, commit to visible to the consumer (ms)
 * @param append latency of the same events, commit to the broker's append of the record (ms)
 * @param missing events written but never visible
 * @param duplicates records returned beyond the first of their event
 * @param peakRssMiB the relay's VmHWM at the end
 */
record GuaranteeRun(
    DeliveryGuarantee guarantee,
    int round,
    int backlog,
    double readySeconds,
    double drainSeconds,
    double drainCpuSeconds,
    int steadyEvents,
    double steadySeconds,
    double steadyCpuSeconds,
    Percentiles visible,
    Percentiles append,
    long missing,
    long duplicates,
    double peakRssMiB) {

  /** Every event written was visible: the run's figures count. */
  boolean complete() {
    return missing == 0;
  }

  /** Backlog events per second, ready to the last one visible. */
  double drainRate() {
    return backlog / drainSeconds;
  }

  /** The relay's CPU milliseconds per 1,000 events of the drain. */
  double drainCpuMsPer1000() {
    return drainCpuSeconds * 1e6 / backlog;
  }

  /** The relay's CPU milliseconds per 1,000 events of the steady load. */
  double steadyCpuMsPer1000() {
    return steadyEvents == 0 ? Double.NaN : steadyCpuSeconds * 1e6 / steadyEvents;
  }

  /** The steady load's achieved rate, events/s. */
  double steadyRate() {
    return steadyEvents / steadySeconds;
  }
}
