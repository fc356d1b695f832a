package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.change.ChangeRecordReader;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.router.ColumnMapping;
import io.outboxrelay.router.OutboxEvent;
import io.outboxrelay.router.RoutingException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Reads an {@link OutboxEvent} out of a Debezium change record. Records that are not inserts or
 * snapshot reads of the outbox table (heartbeats, updates, deletes) map to {@code null}: they carry
 * a position but nothing to publish. The reading itself is {@link ChangeRecordReader}'s, which the
 * Kafka Connect transform uses too, so both publish the same records; the columns are those the
 * source's {@code source.column.*} settings name.
 *
 * <p>Not thread-safe: one instance per engine thread.
 */
final class ChangeEventMapper {

  private final ChangeRecordReader reader;

  /** A mapper of the relay's own table layout. */
  ChangeEventMapper() {
    this(ColumnMapping.DEFAULT, "id");
  }

  /**
   * A mapper of the source's table.
   *
   * @param columns which columns hold what
   * @param sequenceColumn the sequence column, whose value names a row in messages
   */
  ChangeEventMapper(ColumnMapping columns, String sequenceColumn) {
    this.reader = new ChangeRecordReader(columns, sequenceColumn);
  }

  /**
   * The columns CDC mode captures; Debezium excludes the others from change events. The optional
   * ones and the sequence may be missing from the table: their row images then lack them.
   *
   * @param source the source settings
   * @return the column names, without duplicates
   */
  static List<String> capturedColumns(SourceConfig source) {
    ColumnMapping m = source.columns();
    Set<String> columns = new LinkedHashSet<>();
    columns.add(source.sequenceColumn());
    columns.addAll(m.requiredColumns());
    columns.addAll(m.optionalColumns());
    return List.copyOf(columns);
  }

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
