package io.outboxrelay.relay.source.cdc;

import io.debezium.pipeline.ChangeEventSourceCoordinator;
import io.debezium.pipeline.meters.CommonEventMeter;
import io.debezium.pipeline.metrics.PipelineMetrics;
import io.debezium.pipeline.source.spi.EventMetadataProvider;
import io.debezium.pipeline.spi.OffsetContext;
import io.debezium.pipeline.txmetadata.TransactionInfo;
import io.debezium.spi.schema.DataCollectionId;
import java.lang.reflect.Field;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.connect.data.Struct;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps Debezium's streaming metrics from rendering every change event as text.
 *
 * <p>Why: Debezium 3.5's {@code CommonEventMeter.onEvent} stores a summary of each event for the
 * {@code LastEvent} JMX attribute: its position, key and value rendered as text, with a new Jackson
 * {@code ObjectMapper} per event, on the binlog reader's thread (PostgreSQL's streaming thread),
 * the relay's busiest. In a profile that was about a tenth of everything the relay allocated on
 * MariaDB, and a quarter of the PostgreSQL streaming thread's CPU under a steady load. The relay
 * reads no such attribute; with this, {@code LastEvent} holds the event's table name instead (on
 * MariaDB Debezium's binlog metrics put their last binlog event there too). Every counter stays as
 * it is.
 *
 * <p>It replaces a private field of two Debezium 3.5 classes by reflection. When one is missing
 * (another Debezium version), nothing changes but a WARN, and a test fails with the pinned version.
 * Stateless.
 */
final class EventSummaries {

  private static final Logger LOG = LoggerFactory.getLogger(EventSummaries.class);

  private EventSummaries() {}

  /**
   * Shortens the summaries of the coordinator's streaming metrics.
   *
   * @return whether they are shortened
   */
  static boolean shorten(ChangeEventSourceCoordinator<?, ?> coordinator) {
    try {
      Object metrics =
          field(ChangeEventSourceCoordinator.class, "streamingMetrics").get(coordinator);
      if (!(metrics instanceof PipelineMetrics<?>)) {
        throw new NoSuchFieldException("no streaming metrics");
      }
      Object meter = field(PipelineMetrics.class, "commonEventMeter").get(metrics);
      return shorten((CommonEventMeter) meter);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn(
          "Cannot keep Debezium's metrics from rendering every event as text ({}); this costs CPU"
              + " and memory, nothing else",
          e.toString());
      return false;
    }
  }

  /** Shortens one meter's summaries. */
  static boolean shorten(CommonEventMeter meter) throws ReflectiveOperationException {
    Field provider = field(CommonEventMeter.class, "metadataProvider");
    Object current = provider.get(meter);
    if (current instanceof TableOnly) {
      return true;
    }
    provider.set(meter, new TableOnly((EventMetadataProvider) current));
    return true;
  }

  private static Field field(Class<?> type, String name) throws NoSuchFieldException {
    Field f = type.getDeclaredField(name);
    f.setAccessible(true);
    return f;
  }

  /** Debezium's provider, with a summary that is the table's name. */
  private record TableOnly(EventMetadataProvider delegate) implements EventMetadataProvider {

    @Override
    public Instant getEventTimestamp(
        DataCollectionId source, OffsetContext offset, Object key, Struct value) {
      return delegate.getEventTimestamp(source, offset, key, value);
    }

    @Override
    public Map<String, String> getEventSourcePosition(
        DataCollectionId source, OffsetContext offset, Object key, Struct value) {
      return delegate.getEventSourcePosition(source, offset, key, value);
    }

    @Override
    public String getTransactionId(
        DataCollectionId source, OffsetContext offset, Object key, Struct value) {
      return delegate.getTransactionId(source, offset, key, value);
    }

    @Override
    public TransactionInfo getTransactionInfo(
        DataCollectionId source, OffsetContext offset, Object key, Struct value) {
      return delegate.getTransactionInfo(source, offset, key, value);
    }

    @Override
    public String toSummaryString(
        DataCollectionId source, OffsetContext offset, Object key, Struct value) {
      return source == null ? null : source.identifier();
    }
  }
}
