package io.outboxrelay.idempotency.kafka;

import io.outboxrelay.idempotency.EventRef;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Reads a record's event id and optional aggregate version from its headers (UTF-8 text, the last
 * header of a name wins). Immutable and thread-safe.
 */
final class RecordEvents {

  static final String AGGREGATE_TYPE_HEADER = "aggregate_type";
  static final String AGGREGATE_ID_HEADER = "aggregate_id";

  private final String idHeader;
  private final String versionHeader;

  /**
   * @param idHeader the header holding the event id
   * @param versionHeader the header holding the aggregate version (decimal), {@code null} to ignore
   *     versions
   */
  RecordEvents(String idHeader, String versionHeader) {
    this.idHeader = idHeader;
    this.versionHeader = versionHeader;
  }

  /**
   * The event reference of a record.
   *
   * @throws PoisonRecordException if the id header is missing or invalid, or the version header is
   *     present but malformed or without an aggregate type
   */
  EventRef toEventRef(ConsumerRecord<byte[], byte[]> record) {
    String id = header(record, idHeader);
    if (id == null) {
      throw new PoisonRecordException(
          "the record has no '"
              + idHeader
              + "' header: without an event id it cannot be deduplicated");
    }
    try {
      String version = versionHeader == null ? null : header(record, versionHeader);
      if (version == null) {
        return EventRef.of(id);
      }
      String type = header(record, AGGREGATE_TYPE_HEADER);
      String aggregateId = header(record, AGGREGATE_ID_HEADER);
      if (aggregateId == null && record.key() != null) {
        aggregateId = new String(record.key(), StandardCharsets.UTF_8);
      }
      if (type == null || aggregateId == null) {
        throw new PoisonRecordException(
            "the record has a '"
                + versionHeader
                + "' header but no '"
                + AGGREGATE_TYPE_HEADER
                + "' header or aggregate id");
      }
      return EventRef.of(id, type, aggregateId, Long.parseLong(version.trim()));
    } catch (IllegalArgumentException e) { // NumberFormatException included
      throw new PoisonRecordException(
          "the record's event headers are invalid: " + e.getMessage(), e);
    }
  }

  /** The event id for log lines, {@code null} if the record has none. */
  String eventIdOrNull(ConsumerRecord<byte[], byte[]> record) {
    return header(record, idHeader);
  }

  private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null || header.value() == null
        ? null
        : new String(header.value(), StandardCharsets.UTF_8);
  }
}
