package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.change.ChangeRecordReader;
import io.outboxrelay.relay.source.OutboxColumns;
import io.outboxrelay.router.OutboxEvent;
import io.outboxrelay.router.RoutingException;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Reads an {@link OutboxEvent} out of a Debezium change record. Records that are not inserts or
 * snapshot reads of the outbox table (heartbeats, updates, deletes) map to {@code null}: they carry
 * a position but nothing to publish. The reading itself is {@link ChangeRecordReader}'s, which the
 * Kafka Connect transform uses too, so both publish the same records.
 *
 * <p>Not thread-safe: one instance per engine thread.
 */
final class ChangeEventMapper {

  /**
   * The outbox columns CDC mode captures; the others are excluded from change events. The last one
   * is optional: a row image without it (a table without the column) publishes no version.
   */
  static final java.util.List<String> CAPTURED_COLUMNS =
      java.util.stream.Stream.concat(
              OutboxColumns.EVENT_COLUMNS.stream(),
              java.util.stream.Stream.of(OutboxColumns.AGGREGATE_VERSION))
          .toList();

  private final ChangeRecordReader reader = new ChangeRecordReader();

  /**
   * Maps one record.
   *
   * @param record the change record
   * @return the event, or {@code null} when the record publishes nothing
   * @throws RoutingException when the row lacks a required column or value
   */
  OutboxEvent map(SourceRecord record) {
    return reader.read(record);
  }
}
