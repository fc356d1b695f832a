package io.outboxrelay.idempotency.kafka;

import io.outboxrelay.idempotency.EventRef;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Reads a record's event id and optional aggregate version from its headers (UTF-8 text, the last
 * header of a name wins), and hashes its value for the processor's conflict check. Immutable and
 * thread-safe.
 *
 * <p>Header values are decoded strictly: bytes that are not valid UTF-8 make the record poison
 * instead of being replaced by U+FFFD. A lenient decoding would map different invalid ids to one
 * string, and the second event would be skipped as a duplicate of the first, never handled.
 */
final class RecordEvents {

  static final String AGGREGATE_TYPE_HEADER = "aggregate_type";
  static final String AGGREGATE_ID_HEADER = "aggregate_id";

  /** How many bytes of an undecodable value a message shows (in hex). */
  private static final int SHOWN_BYTES = 64;

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
   * The event reference of a record, with the SHA-256 of its value as payload hash when asked (none
   * for a null value): only a processor with the conflict check needs it.
   *
   * @throws PoisonRecordException if the id header is missing, not valid UTF-8 or otherwise
   *     invalid, or the version header is present but malformed or without an aggregate type and id
   */
  EventRef toEventRef(ConsumerRecord<byte[], byte[]> record, boolean hashPayload) {
    EventRef event = withoutPayload(record);
    return !hashPayload || record.value() == null ? event : event.withPayload(record.value());
  }

  private EventRef withoutPayload(ConsumerRecord<byte[], byte[]> record) {
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
        aggregateId = decode(record.key(), "key");
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

  /** The event id for exceptions, {@code null} if the record has none or it is not valid UTF-8. */
  String eventIdOrNull(ConsumerRecord<byte[], byte[]> record) {
    try {
      return header(record, idHeader);
    } catch (PoisonRecordException e) {
      return null;
    }
  }

  /**
   * The event id as log lines show it: {@code event id e-1}, {@code no event id}, or {@code event
   * id not valid UTF-8: 65ff}.
   */
  String describeId(ConsumerRecord<byte[], byte[]> record) {
    Header header = record.headers().lastHeader(idHeader);
    if (header == null || header.value() == null) {
      return "no event id";
    }
    try {
      return "event id " + decode(header.value(), "'" + idHeader + "' header");
    } catch (PoisonRecordException e) {
      return "event id not valid UTF-8: " + hex(header.value());
    }
  }

  /** The bytes as UTF-8 text, {@code null} if they are {@code null} or not valid UTF-8. */
  static String utf8OrNull(byte[] bytes) {
    try {
      return bytes == null ? null : decode(bytes, "value");
    } catch (PoisonRecordException e) {
      return null;
    }
  }

  /** The header's value as text, {@code null} if absent; poison if it is not valid UTF-8. */
  private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null || header.value() == null
        ? null
        : decode(header.value(), "'" + name + "' header");
  }

  private static String decode(byte[] bytes, String what) {
    try {
      // A fresh decoder per call: decoders are stateful, and this class is shared by threads.
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException e) {
      throw new PoisonRecordException(
          "the record's "
              + what
              + " is not valid UTF-8 (bytes "
              + hex(bytes)
              + "): the producer must write it as UTF-8 text",
          e);
    }
  }

  private static String hex(byte[] bytes) {
    String shown = HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, SHOWN_BYTES));
    return bytes.length > SHOWN_BYTES ? shown + "... (" + bytes.length + " bytes)" : shown;
  }
}
