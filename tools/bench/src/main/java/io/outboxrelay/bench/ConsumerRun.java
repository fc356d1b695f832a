package io.outboxrelay.bench;

/**
 * One consumer run over a topic: from the moment the first record reached the handler to the
 * database commit of the last one, so that the consumer group's join is not measured.
 *
 * @param records records applied
 * @param firstNanos {@link System#nanoTime()} when the first record reached the handler
 * @param lastNanos {@link System#nanoTime()} when the last record's transaction committed
 */
record ConsumerRun(long records, long firstNanos, long lastNanos) {

  double seconds() {
    return (lastNanos - firstNanos) / 1e9;
  }

  double rate() {
    return records / seconds();
  }
}
