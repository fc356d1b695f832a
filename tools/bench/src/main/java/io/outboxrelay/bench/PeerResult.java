package io.outboxrelay.bench;

/**
 * The figures of one pipeline in one round of the peers group. A figure that could not be taken
 * (the pipeline never got that far) is {@code NaN}; all of them count only when the audit found
 * every event as its row says ({@link TopicAudit#complete()}).
 *
 * @param peer the pipeline
 * @param round 1, 2, ...
 * @param backlog the events of the backlog
 * @param firstEventSeconds process start to the broker's append of the backlog's first event
 * @param drainRate backlog events per second from the first event's append to the last one's
 * @param drainWithStartRate backlog events per second from the process start to the last append
 * @param startCpuSeconds the pipeline JVM's CPU from its start to the first event
 * @param drainCpuSeconds the pipeline JVM's CPU from the first event to the last
 * @param drainMachineCpuSeconds the whole machine's busy CPU over that span (all processes)
 * @param drainDatabaseCpuSeconds the database server's and its children's CPU over that span
 * @param steadyEvents events written by the steady load
 * @param steadySeconds how long the steady load wrote
 * @param steadyCpuSeconds the pipeline JVM's CPU from the steady load's start to its last event
 * @param steadyMachineCores the cores the whole machine kept busy over that span (all processes)
 * @param steadyDatabaseCores the cores the database server and its children used over that span
 * @param peakRssMiB the pipeline JVM's peak RSS (VmHWM) through the start, the drain and the load
 * @param idleCorePercent the pipeline JVM's CPU while no event arrives ({@link PeerBench#IDLE}
 *     after the last event), in percent of one core
 * @param audit what the topics hold
 */
record PeerResult(
    Peer peer,
    int round,
    int backlog,
    double firstEventSeconds,
    double drainRate,
    double drainWithStartRate,
    double startCpuSeconds,
    double drainCpuSeconds,
    double drainMachineCpuSeconds,
    double drainDatabaseCpuSeconds,
    int steadyEvents,
    double steadySeconds,
    double steadyCpuSeconds,
    double steadyMachineCores,
    double steadyDatabaseCores,
    double peakRssMiB,
    double idleCorePercent,
    TopicAudit audit) {

  /** CPU seconds per 100,000 events of the drain. */
  double drainCpuPer100k() {
    return drainCpuSeconds * 100_000 / backlog;
  }

  /**
   * What the drain cost the whole machine per event, every process included, in µs: on a machine
   * the drain keeps busy, this sets its rate.
   */
  double drainMachineMicrosPerEvent() {
    return drainMachineCpuSeconds * 1e6 / backlog;
  }

  /** What the drain cost the database's processes per event, in µs. */
  double drainDatabaseMicrosPerEvent() {
    return drainDatabaseCpuSeconds * 1e6 / backlog;
  }

  /** CPU seconds per 100,000 events of the steady load. */
  double steadyCpuPer100k() {
    return steadyEvents == 0 ? Double.NaN : steadyCpuSeconds * 100_000 / steadyEvents;
  }

  /** The steady load's achieved rate, events/s. */
  double steadyRate() {
    return steadyEvents / steadySeconds;
  }
}
