package io.outboxrelay.idempotency;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What the processor needs to know about one delivered event: its id, for the optional version
 * check its aggregate version, and for the optional conflict check a hash of its payload. Immutable
 * and thread-safe.
 *
 * @param eventId the event's unique id (the outbox {@code event_id}, Kafka header {@code id}); not
 *     blank, at most 255 characters, no trailing space
 * @param aggregateVersion the aggregate version the event brings its aggregate to, or {@code null}
 *     if the event carries none (no version check for it)
 * @param payloadHash the SHA-256 of the event's payload bytes as 64 lowercase hex digits (see
 *     {@link #withPayload(byte[])}), or {@code null} if none is known (no conflict check for it)
 */
public record EventRef(String eventId, AggregateVersion aggregateVersion, String payloadHash) {

  private static final Pattern SHA_256_HEX = Pattern.compile("[0-9a-f]{64}");

  /**
   * Validates the components.
   *
   * @param eventId see {@link EventRef}
   * @param aggregateVersion see {@link EventRef}
   * @param payloadHash see {@link EventRef}
   * @throws NullPointerException if {@code eventId} is {@code null}
   * @throws IllegalArgumentException if {@code eventId} is blank, longer than 255 characters or
   *     ends with a space (MariaDB's and MySQL's PAD SPACE collations would compare it equal to the
   *     id without the space), or {@code payloadHash} is not 64 lowercase hex digits
   */
  public EventRef {
    KeyValues.require(Objects.requireNonNull(eventId, "eventId"), "event id");
    if (payloadHash != null && !SHA_256_HEX.matcher(payloadHash).matches()) {
      throw new IllegalArgumentException(
          "payloadHash must be a SHA-256 as 64 lowercase hex digits, got: " + payloadHash);
    }
  }

  /**
   * An event without a payload hash.
   *
   * @param eventId see {@link EventRef}
   * @param aggregateVersion see {@link EventRef}
   * @throws IllegalArgumentException see {@link EventRef}
   */
  public EventRef(String eventId, AggregateVersion aggregateVersion) {
    this(eventId, aggregateVersion, null);
  }

  /**
   * An event without an aggregate version.
   *
   * @param eventId see {@link EventRef}
   * @return the reference
   * @throws IllegalArgumentException see {@link EventRef}
   */
  public static EventRef of(String eventId) {
    return new EventRef(eventId, null, null);
  }

  /**
   * An event with an aggregate version.
   *
   * @param eventId see {@link EventRef}
   * @param aggregateType see {@link AggregateVersion}
   * @param aggregateId see {@link AggregateVersion}
   * @param version see {@link AggregateVersion}
   * @return the reference
   * @throws IllegalArgumentException see {@link EventRef} and {@link AggregateVersion}
   */
  public static EventRef of(
      String eventId, String aggregateType, String aggregateId, long version) {
    return new EventRef(eventId, new AggregateVersion(aggregateType, aggregateId, version), null);
  }

  /**
   * This event with the SHA-256 of its payload, for the processor's conflict check. Give the bytes
   * exactly as delivered (for a Kafka record, its value): every delivery of one event must hash to
   * the same value, or its redeliveries are taken for conflicts.
   *
   * @param payload the payload bytes; not {@code null}; not kept
   * @return a reference with the same id and version and {@link #payloadHash()} set
   */
  public EventRef withPayload(byte[] payload) {
    Objects.requireNonNull(payload, "payload");
    return new EventRef(eventId, aggregateVersion, HexFormat.of().formatHex(sha256(payload)));
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform provides SHA-256", e);
    }
  }
}
