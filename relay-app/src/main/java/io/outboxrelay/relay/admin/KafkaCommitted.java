package io.outboxrelay.relay.admin;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.source.cdc.HandoffMarker;
import io.outboxrelay.relay.source.cdc.KafkaPosition;
import io.outboxrelay.relay.source.cdc.PostgresReplication;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * With {@code delivery.guarantee=exactly-once}: the position the relay committed in Kafka (its
 * progress topic, read as a {@code read_committed} consumer sees it, without fencing a running
 * relay), next to the database's, and which of the two a relay starting now resumes at. Immutable.
 *
 * @param topic the progress topic
 * @param position Kafka's position, if the relay committed one there; null when unknown
 * @param unknown why Kafka's position is unknown, one line; null when known
 * @param resumesAt which position a relay starting now resumes at
 * @param wal whether the positions are PostgreSQL's (WAL) rather than binlog positions
 */
record KafkaCommitted(
    String topic, Optional<OffsetsRow> position, String unknown, ResumesAt resumesAt, boolean wal) {

  /** How long {@code status} waits for Kafka. */
  static final Duration READ_TIMEOUT = Duration.ofSeconds(5);

  /** Where a relay starting now resumes. */
  enum ResumesAt {
    /** Kafka's position. */
    KAFKA,
    /** The database's stored position. */
    DATABASE,
    /** A first start: neither holds a position. */
    FIRST_START,
    /** A hand-off to CDC's first start: the database holds its marker. */
    HANDOFF,
    /** Kafka's position is unknown. */
    UNKNOWN
  }

  /**
   * Reads Kafka's position for a relay whose database state is {@code state}.
   *
   * @param config the relay's configuration
   * @param state what the database holds
   * @return null with at-least-once delivery (there is no position in Kafka)
   */
  static KafkaCommitted read(RelayConfig config, CdcState state) {
    if (!config.delivery().exactlyOnce()) {
      return null;
    }
    KafkaPosition kafka = new KafkaPosition(config, READ_TIMEOUT);
    return of(kafka.topic(), kafka.read(), state);
  }

  /**
   * Reads Kafka's position for a relay on PostgreSQL whose database holds {@code stored}.
   *
   * @param config the relay's configuration
   * @param stored the relay's {@code offset_val} (a position, or a first start's or a hand-off's
   *     marker), or null when it holds none
   * @return null with at-least-once delivery (there is no position in Kafka)
   */
  static KafkaCommitted readPostgres(RelayConfig config, String stored) {
    if (!config.delivery().exactlyOnce()) {
      return null;
    }
    KafkaPosition kafka = new KafkaPosition(config, READ_TIMEOUT);
    return of(kafka.topic(), kafka.read(), stored, stored != null && isHandoff(stored), true);
  }

  /**
   * What a read of Kafka's position means next to the database's.
   *
   * @param topic the progress topic
   * @param r what the read found
   * @param state what the database holds
   * @return the positions and where the next start resumes
   */
  static KafkaCommitted of(String topic, KafkaPosition.Reading r, CdcState state) {
    return of(topic, r, databaseText(state), state.handoffPending(), false);
  }

  /**
   * What a read of Kafka's position means next to the database's {@code offset_val}.
   *
   * @param topic the progress topic
   * @param r what the read found
   * @param database the database's {@code offset_val} (a hand-off's or a first start's marker
   *     included), or null when it holds none
   * @param handoffPending whether {@code database} is a hand-off's marker
   * @param wal whether the positions are PostgreSQL's
   * @return the positions and where the next start resumes
   */
  static KafkaCommitted of(
      String topic, KafkaPosition.Reading r, String database, boolean handoffPending, boolean wal) {
    if (!r.known()) {
      return new KafkaCommitted(topic, null, r.unknown(), ResumesAt.UNKNOWN, wal);
    }
    boolean firstStart =
        database != null && !handoffPending && !PostgresReplication.isPosition(database);
    if (r.position().isEmpty()) {
      return new KafkaCommitted(
          topic,
          Optional.empty(),
          null,
          handoffPending
              ? ResumesAt.HANDOFF
              : database == null || firstStart ? ResumesAt.FIRST_START : ResumesAt.DATABASE,
          wal);
    }
    String text = r.position().get();
    Optional<OffsetsRow> parsed;
    try {
      parsed = Optional.of(new OffsetsRow(null, null, OffsetsRow.parseOffset(text), null, 0));
    } catch (SQLException e) {
      return new KafkaCommitted(
          topic, null, "its value is not an offset: " + text, ResumesAt.UNKNOWN, wal);
    }
    ResumesAt at =
        KafkaPosition.resumesAtKafka(text, database)
            ? ResumesAt.KAFKA
            : handoffPending
                ? ResumesAt.HANDOFF
                : firstStart ? ResumesAt.FIRST_START : ResumesAt.DATABASE;
    return new KafkaCommitted(topic, parsed, null, at, wal);
  }

  private static boolean isHandoff(String stored) {
    try {
      return HandoffMarker.is(Json.MAPPER.readTree(stored));
    } catch (JsonProcessingException e) {
      return false;
    }
  }

  /** The database's {@code offset_val} as the relay's start compares it, or null. */
  private static String databaseText(CdcState state) {
    if (state.handoffPending()) {
      return HandoffMarker.value("pending");
    }
    if (state.stored().isEmpty()) {
      return null;
    }
    try {
      return Json.MAPPER.writeValueAsString(state.stored().get().offset());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e); // parsed from JSON, so it serialises
    }
  }

  /** The lines of {@code status} and {@code position show}. */
  void print(TextTable t, CdcState state) {
    print(t, state.stored().map(OffsetsRow::offset).orElse(null));
  }

  /**
   * The lines of {@code status} and {@code position show}.
   *
   * @param stored the database's position, or null when it holds none (or a marker)
   */
  void print(TextTable t, Map<String, Object> stored) {
    if (unknown != null) {
      t.row("Kafka's position:", "unknown (" + unknown + ")");
    } else if (position.isEmpty()) {
      t.row("Kafka's position:", "none in " + topic);
    } else {
      OffsetsRow p = position.get();
      t.row(
          "Kafka's position:",
          (isLsn(p.offset())
                  ? lsnText(p.offset())
                  : p.position()
                      + skipText(p)
                      + (p.eventTime() == null ? "" : ", last event at " + p.eventTime()))
              + " (progress topic "
              + topic
              + ")");
    }
    t.row("next start at:", describeResume(stored));
  }

  /** Whether an offset is Debezium's PostgreSQL one (an LSN), not a binlog position. */
  private static boolean isLsn(Map<String, Object> offset) {
    return offset.containsKey("lsn") && !offset.containsKey("file");
  }

  /** A PostgreSQL position: its LSN, and its {@code lsn_commit} where it has one. */
  static String lsnText(Map<String, Object> offset) {
    Object commit = offset.get("lsn_commit");
    return "LSN "
        + lsn(offset.get("lsn"))
        + (commit == null ? "" : " (lsn_commit " + lsn(commit) + ")");
  }

  /** An LSN of an offset as PostgreSQL prints it ({@code 0/1A2B3C8}). */
  private static String lsn(Object value) {
    return PostgresReplication.lsnText(
        value instanceof Number n ? n.longValue() : Long.parseLong(String.valueOf(value)));
  }

  private static String skipText(OffsetsRow p) {
    return p.eventsToSkip() > 0 || p.rowsToSkip() > 0
        ? ", then " + p.eventsToSkip() + " events and " + p.rowsToSkip() + " rows"
        : "";
  }

  private String describeResume(Map<String, Object> stored) {
    String log = wal ? "WAL" : "binlog";
    return switch (resumesAt) {
      case KAFKA ->
          stored == null
              ? "Kafka's position (the database holds none)"
              : "Kafka's position (the database's is behind it: it is written after the Kafka"
                  + " commit, every cdc.commit.interval, and lags it after a crash)";
      case DATABASE ->
          position.isEmpty()
              ? "the stored position (Kafka holds none yet)"
              : stored != null && PositionImport.sameOffset(position.get().offset(), stored)
                  ? "the stored position, the same as Kafka's"
                  : "the stored position: it is later in the "
                      + log
                      + " than Kafka's (an at-least-once run or a position command moved it on)";
      case HANDOFF ->
          "a first start that publishes the rows polling left unpublished (hand-off to CDC"
              + " pending), then commits its snapshot's position to Kafka";
      case FIRST_START ->
          stored == null && (position == null || position.isEmpty())
              ? "a first start (neither Kafka nor the database holds a position)"
              : "a first start (one did not finish: it begins again), which commits its"
                  + " snapshot's position to Kafka";
      case UNKNOWN ->
          "unknown until Kafka answers: Kafka's position, unless the stored one is the same or"
              + " later in the "
              + log;
    };
  }

  /** The fields of {@code --json}. */
  void put(ObjectNode n) {
    n.put("progress_topic", topic);
    if (position != null && position.isPresent()) {
      OffsetsRow p = position.get();
      ObjectNode k = n.putObject("kafka_position");
      if (isLsn(p.offset())) {
        k.put("lsn", lsn(p.offset().get("lsn")));
        Object commit = p.offset().get("lsn_commit");
        k.put("lsn_commit", commit == null ? null : lsn(commit));
        Object micros = p.offset().get("ts_usec");
        if (micros instanceof Number m) {
          Json.put(k, "event_time", java.time.Instant.EPOCH.plusNanos(m.longValue() * 1000));
        }
        n.put("kafka_position_unknown", unknown);
        n.put("resumes_at", resumesAt.name().toLowerCase(java.util.Locale.ROOT));
        return;
      }
      k.put("file", p.file());
      k.put("pos", p.pos());
      k.put("gtids", p.gtids());
      k.put("event", p.eventsToSkip());
      k.put("row", p.rowsToSkip());
      Json.put(k, "event_time", p.eventTime());
    } else {
      n.putNull("kafka_position");
    }
    n.put("kafka_position_unknown", unknown);
    n.put("resumes_at", resumesAt.name().toLowerCase(java.util.Locale.ROOT));
  }
}
