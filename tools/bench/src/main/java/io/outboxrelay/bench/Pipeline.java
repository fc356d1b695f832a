package io.outboxrelay.bench;

/**
 * One way to move outbox rows to Kafka, set up for one database and one topic prefix: the relay, or
 * a pipeline a user would pick instead. Each start is a child JVM whose CPU and memory the
 * benchmark reads from /proc. The first start captures from the binlog's end, later ones from the
 * position the earlier one stored.
 */
interface Pipeline {

  /**
   * Starts a process of the pipeline; returns at once.
   *
   * @param process a name for the process and its log file
   */
  Started start(String process);

  /** A started process of a pipeline. */
  interface Started {

    /** The pid of the pipeline's JVM. */
    long pid();

    /** Waits until the process reads the binlog: what commits after this is published. */
    void awaitCapturing();

    /** Stops the process cleanly (SIGTERM; it stores its position) and waits for its exit. */
    void stop();
  }
}
