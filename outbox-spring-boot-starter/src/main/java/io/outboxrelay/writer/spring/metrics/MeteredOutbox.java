package io.outboxrelay.writer.spring.metrics;

import io.outboxrelay.writer.NewEvent;
import io.outboxrelay.writer.spring.Outbox;
import java.util.List;
import java.util.Objects;

/**
 * The starter's {@link Outbox}, counting what it appended in {@link WriterMetrics}. Thread-safe.
 */
final class MeteredOutbox implements Outbox {

  private final Outbox delegate;
  private final WriterMetrics metrics;

  MeteredOutbox(Outbox delegate, WriterMetrics metrics) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
  }

  @Override
  public List<String> appendAll(List<NewEvent> events) {
    List<String> ids = delegate.appendAll(events);
    metrics.appended(events);
    return ids;
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
