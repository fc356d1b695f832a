package io.outboxrelay.connect;

import io.outboxrelay.change.ChangeRecordReader;
import io.outboxrelay.router.EventRouter;
import io.outboxrelay.router.OutboxEvent;
import io.outboxrelay.router.RecordHeader;
import io.outboxrelay.router.RoutedRecord;
import io.outboxrelay.router.RoutingException;
import io.outboxrelay.router.Utf8;
import java.nio.charset.CharacterCodingException;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.components.Versioned;
import org.apache.kafka.connect.connector.ConnectRecord;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Headers;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka Connect Single Message Transform that publishes the outbox table's change events from
 * Debezium's MariaDB or MySQL connector exactly as the outbox relay publishes the same rows: it
 * reads the row, hands it to the relay's own {@link EventRouter}, and returns the router's record
 * unchanged.
 *
 * <ul>
 *   <li>topic: {@code router.topic.template} rendered by the router (default {@code
 *       outbox.event.${aggregate_type}}); the partition is left to the producer, which picks it
 *       from the key as the relay's producer does;
 *   <li>key: the router's key, {@code aggregate_id} as UTF-8 bytes ({@link Schema#BYTES_SCHEMA});
 *   <li>value: the payload's bytes as stored ({@link Schema#BYTES_SCHEMA});
 *   <li>headers: exactly the router's headers, in its order and nothing else (Debezium's own
 *       headers are dropped), each as a {@link Schema#STRING_SCHEMA} value: the trace headers, the
 *       relay's own ({@code router.headers}), the placed columns' and the application headers, as
 *       {@link EventRouter} describes them.
 * </ul>
 *
 * <p>The columns it reads are named by the relay's column settings ({@code source.column.*}, the
 * same keys and defaults), so a table laid out as Debezium's outbox table is read too.
 *
 * <p>The bytes reach Kafka unchanged only with {@code key.converter} and {@code value.converter}
 * set to {@code org.apache.kafka.connect.converters.ByteArrayConverter} and {@code
 * header.converter} to {@code org.apache.kafka.connect.storage.StringConverter} (Connect's default
 * {@code SimpleHeaderConverter} writes the same bytes).
 *
 * <p>Like the relay's CDC mode, only inserts and snapshot reads of outbox rows publish: updates,
 * deletes, their tombstones, heartbeats, schema changes and transaction markers are dropped ({@link
 * #apply} returns {@code null}; Connect still commits their offsets). An event that cannot be
 * routed (an illegal topic name, a NULL payload, a missing column) is poison: with {@code
 * poison.action=fail} {@link #apply} throws a {@link DataException} that names the event and what
 * to change, never its payload; with {@code skip} the event is logged at ERROR and dropped.
 *
 * <p>Connect creates one instance per task and calls it from that task's thread: instances are not
 * thread-safe. {@link #configure} must be called before {@link #apply}.
 *
 * @param <R> the record type ({@code SourceRecord} for Debezium)
 */
public final class OutboxRouterTransform<R extends ConnectRecord<R>>
    implements Transformation<R>, Versioned {

  private static final Logger LOG = LoggerFactory.getLogger(OutboxRouterTransform.class);

  private ChangeRecordReader reader;
  private EventRouter router;
  private TransformConfig.PoisonAction poisonAction;

  /** Creates an unconfigured transform; Connect calls {@link #configure} next. */
  public OutboxRouterTransform() {}

  /**
   * Reads and checks the settings ({@link #config()} declares them).
   *
   * @param props the settings under {@code transforms.<alias>.}
   * @throws ConfigException listing every invalid value and unknown key
   */
  @Override
  public void configure(Map<String, ?> props) {
    TransformConfig config = TransformConfig.parse(props);
    router =
        EventRouter.builder()
            .topicTemplate(config.topicTemplate())
            .headers(config.routerHeaders())
            .build();
    reader = new ChangeRecordReader(config.columns(), config.rowIdColumn());
    poisonAction = config.poisonAction();
    LOG.info(
        "[outbox-transform] version {}: {}={}, {}={}, {}={}, columns {}",
        version(),
        TransformConfig.TOPIC_TEMPLATE,
        config.topicTemplate(),
        TransformConfig.ROUTER_HEADERS,
        String.join(",", config.routerHeaders()),
        TransformConfig.POISON_ACTION,
        poisonAction.name().toLowerCase(Locale.ROOT),
        config.columns());
  }

  /**
   * Turns one change event into the record the relay would publish for it.
   *
   * @param record a record from Debezium's MariaDB or MySQL connector; never null
   * @return the routed record, or {@code null} when the change publishes nothing (an update, a
   *     delete, a tombstone, a heartbeat...) or is poison skipped by {@code poison.action=skip}
   * @throws DataException when the event is poison and {@code poison.action=fail}
   * @throws IllegalStateException when the transform was not configured
   */
  @Override
  public R apply(R record) {
    if (router == null) {
      throw new IllegalStateException("the outbox transform is not configured");
    }
    OutboxEvent event = null;
    RoutedRecord routed;
    Headers headers = new ConnectHeaders();
    try {
      event = reader.read(record);
      if (event == null) {
        return null;
      }
      routed = router.route(event);
      for (RecordHeader header : routed.headers()) {
        headers.add(header.name(), text(header, routed), Schema.STRING_SCHEMA);
      }
    } catch (RuntimeException e) {
      return poison(record, event, e);
    }
    return record.newRecord(
        routed.topic(),
        null,
        Schema.BYTES_SCHEMA,
        routed.key(),
        Schema.BYTES_SCHEMA,
        routed.value(),
        record.timestamp(),
        headers);
  }

  /** Skips or refuses an event that cannot be routed; messages name it, never its payload. */
  private R poison(R record, OutboxEvent event, RuntimeException e) {
    String what =
        event == null
            ? "an outbox change event (topic "
                + record.topic()
                + ", offset "
                + (record instanceof SourceRecord s ? s.sourceOffset() : null)
                + ")"
            : event.describe();
    String reason = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
    if (poisonAction == TransformConfig.PoisonAction.SKIP) {
      LOG.error("[outbox-transform] skipping {} that cannot be published: {}", what, reason);
      return null;
    }
    throw new DataException(
        "cannot publish "
            + what
            + ": "
            + (reason.endsWith(".") ? reason.substring(0, reason.length() - 1) : reason)
            + ". Fix the cause and restart the task; to skip such events set poison.action=skip"
            + " (or Connect's errors.tolerance=all)",
        e);
  }

  /**
   * A header value as text. The router writes UTF-8 text; anything else would be changed by the
   * header converter, so it is refused rather than altered.
   */
  private static String text(RecordHeader header, RoutedRecord routed) {
    try {
      return Utf8.decode(header.value());
    } catch (CharacterCodingException e) {
      throw new RoutingException(
          "header "
              + header.name()
              + " of the record for topic "
              + routed.topic()
              + " is not UTF-8 text, which Connect's header converters cannot pass through"
              + " unchanged: write the column as UTF-8 text");
    }
  }

  /**
   * The declared settings: {@code router.topic.template}, {@code router.headers}, {@code
   * poison.action} and the column settings.
   *
   * @return the settings' definitions, with their docs
   */
  @Override
  public ConfigDef config() {
    return TransformConfig.DEF;
  }

  /** Nothing to release. */
  @Override
  public void close() {}

  /**
   * The transform's version, from its jar's manifest.
   *
   * @return the version, or {@code unknown} outside a built jar
   */
  @Override
  public String version() {
    String version = OutboxRouterTransform.class.getPackage().getImplementationVersion();
    return version == null ? "unknown" : version;
  }
}
