package io.outboxrelay.idempotency.kafka;

import io.outboxrelay.idempotency.EventRef;
import io.outboxrelay.router.OutboxHeaders;
import io.outboxrelay.router.Utf8;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Reads a record's event id and optional aggregate version from its headers (UTF-8 text, the last
 * header of a name wins), and hashes its value for the processor's conflict check: how a Kafka
 * record becomes an {@link EventRef}, for {@link IdempotentConsumer} and for consumers that run
 * their own loop (a framework's listener container) around {@link
 * io.outboxrelay.idempotency.IdempotentProcessor}. Immutable and thread-safe.
 *
 * <p>The headers are those the relay publishes: the event id in {@code id} (configurable), and for
 * the version check the aggregate version as decimal text in {@code aggregate_version}
 * (configurable) with {@code aggregate_type} and {@code aggregate_id} (or, without the latter, the
 * record's key).
 *
 * <p>Header values are decoded strictly: bytes that are not valid UTF-8 make the record poison
 * instead of being replaced by U+FFFD. A lenient decoding would map different invalid ids to one
 * string, and the second event would be skipped as a duplicate of the first, never handled.
 */
public final class RecordEvents {

  static final String AGGREGATE_TYPE_HEADER = OutboxHeaders.AGGREGATE_TYPE;
  static final String AGGREGATE_ID_HEADER = OutboxHeaders.AGGREGATE_ID;

  /** How many bytes of an undecodable value a message shows (in hex). */
  private static final int SHOWN_BYTES = 64;

  private final String idHeader;
  private final String versionHeader;

  /**
   * Reads events from the given headers.
   *
   * @param idHeader the header holding the event id, {@code id} for the relay's records; not blank
   * @param versionHeader the header holding the aggregate version (decimal), {@code
   *     aggregate_version} for the relay's records, or {@code null} to ignore versions
   * @throws IllegalArgumentException if a header name is blank
   */
  public RecordEvents(String idHeader, String versionHeader) {
    this.idHeader = requireHeaderName(idHeader);
    this.versionHeader = versionHeader == null ? null : requireHeaderName(versionHeader);
  }

  static String requireHeaderName(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("a header name must not be blank");
    }
    return name;
  }

  /**
   * The event reference of a record, with the SHA-256 of its value as payload hash when asked: only
   * a processor with the conflict check needs it. The value is hashed as delivered when it is a
   * {@code byte[]}, and as its UTF-8 bytes when it is a {@code String} (the delivered bytes, for a
   * value that was valid UTF-8); a value of another type, or {@code null}, gives no hash. A key
   * used as the aggregate id must be a {@code byte[]} of UTF-8 text or a {@code String}.
   *
   * @param record the record, deserialised or not; not {@code null}
   * @param hashPayload whether to compute the payload hash
   * @return the event reference
   * @throws PoisonRecordException if the id header is missing, not valid UTF-8 or otherwise
   *     invalid, or the version header is present but malformed or without an aggregate type and id
   */
  public EventRef toEventRef(ConsumerRecord<?, ?> record, boolean hashPayload) {
    EventRef event = withoutPayload(record);
    if (!hashPayload) {
      return event;
    }
    Object value = record.value();
    if (value instanceof byte[] bytes) {
      return event.withPayload(bytes);
    }
    if (value instanceof String text) {
      return event.withPayload(text.getBytes(StandardCharsets.UTF_8));
    }
    return event;
  }

  private EventRef withoutPayload(ConsumerRecord<?, ?> record) {
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
      if (aggregateId == null) {
        aggregateId = keyText(record.key());
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

  /** A key as text: a {@code String} as it is, bytes decoded strictly; otherwise {@code null}. */
  private static String keyText(Object key) {
    if (key instanceof byte[] bytes) {
      return decode(bytes, "key");
    }
    return key instanceof String text ? text : null;
  }

  /**
   * The record's event id, for messages and span attributes.
   *
   * @param record the record; not {@code null}
   * @return the id, or {@code null} if the record has none or it is not valid UTF-8
   */
  public String eventIdOrNull(ConsumerRecord<?, ?> record) {
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
  String describeId(ConsumerRecord<?, ?> record) {
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

  /**
   * A key or value as text: a {@code String} as it is, bytes if they are valid UTF-8; otherwise
   * {@code null}.
   */
  static String utf8OrNull(Object keyOrValue) {
    if (keyOrValue instanceof String text) {
      return text;
    }
    try {
      return keyOrValue instanceof byte[] bytes ? decode(bytes, "value") : null;
    } catch (PoisonRecordException e) {
      return null;
    }
  }

  /** The header's value as text, {@code null} if absent; poison if it is not valid UTF-8. */
  private static String header(ConsumerRecord<?, ?> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null || header.value() == null
        ? null
        : decode(header.value(), "'" + name + "' header");
  }

  private static String decode(byte[] bytes, String what) {
    try {
      return Utf8.decode(bytes);
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
