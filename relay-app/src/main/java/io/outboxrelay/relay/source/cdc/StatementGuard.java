package io.outboxrelay.relay.source.cdc;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.EventData;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.GtidEventData;
import com.github.shyiko.mysql.binlog.event.MariadbGtidEventData;
import com.github.shyiko.mysql.binlog.event.QueryEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import io.debezium.config.Configuration;
import io.debezium.pipeline.ChangeEventSourceCoordinator;
import io.outboxrelay.relay.RelayFailure;
import java.io.IOException;
import java.lang.reflect.Field;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops the relay at the first statement-based binlog event that changes the outbox table.
 *
 * <p>Why: a session writing with {@code binlog_format=STATEMENT} (or {@code MIXED}, for statements
 * the server deems safe) puts the SQL of its changes into the binlog, not their rows. Debezium
 * skips such an event with a WARN that prints the whole statement, payloads included, and its
 * events are never published. The guard wraps the binlog client's deserializer of query events: a
 * DML statement on the outbox table trips it, and the event then fails to deserialize, so Debezium
 * never sees (or logs) it. From then on {@link TappedPoll} hands no record to the engine and throws
 * the failure instead, so the stored position stays before the statement.
 *
 * <p>It reaches three private fields of Debezium 3.5.0 and its binlog client by reflection. When
 * one is missing (another version), {@link #install} returns empty with a warning and
 * statement-based events are skipped as Debezium does; a test fails if that happens with the pinned
 * version. Thread-safe: the binlog reader thread trips it, the engine's poller reads it.
 */
final class StatementGuard {

  private static final Logger LOG = LoggerFactory.getLogger(StatementGuard.class);

  private final String database;
  private final String table;
  private final String offsetsTable;
  private final Field deserializerField;
  private final AtomicReference<RelayFailure> failure = new AtomicReference<>();
  private volatile String lastGtid;

  /** A guard for a table, attached to nothing yet ({@link #attach}). */
  StatementGuard(String database, String table, String offsetsTable) throws NoSuchFieldException {
    this.database = database;
    this.table = table;
    this.offsetsTable = offsetsTable;
    this.deserializerField = field(BinaryLogClient.class, "eventDeserializer");
  }

  /**
   * Installs the guard on the binlog client of a started connector task.
   *
   * @param coordinator what the task's {@code start} returned
   * @param config the task's configuration (the relay's Debezium properties)
   * @return the guard, or empty (with a warning) when this Debezium version is not the expected one
   */
  static Optional<StatementGuard> install(
      ChangeEventSourceCoordinator<?, ?> coordinator, Configuration config) {
    try {
      BinaryLogClient client = clientOf(coordinator);
      String database = config.getString("database.include.list");
      String table = config.getString("table.include.list").substring(database.length() + 1);
      StatementGuard guard =
          new StatementGuard(
              database,
              table,
              config.getString("offset.storage.jdbc.table.name", "outbox_relay_offsets"));
      guard.attach(client);
      return Optional.of(guard);
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.warn(
          "Cannot watch the binlog for statement-based changes to the outbox table ({}): keep"
              + " binlog_format=ROW, such changes would not be published",
          e.toString());
      return Optional.empty();
    }
  }

  /**
   * The binlog client of a started connector task: its source factory's, which hands it to the
   * streaming source.
   *
   * @param coordinator what the task's {@code start} returned
   * @return the client
   * @throws ReflectiveOperationException when this Debezium version keeps it elsewhere
   */
  static BinaryLogClient clientOf(ChangeEventSourceCoordinator<?, ?> coordinator)
      throws ReflectiveOperationException {
    Object factory =
        field(ChangeEventSourceCoordinator.class, "changeEventSourceFactory").get(coordinator);
    return (BinaryLogClient) field(factory.getClass(), "binaryLogClient").get(factory);
  }

  static Field field(Class<?> type, String name) throws NoSuchFieldException {
    Field f = type.getDeclaredField(name);
    f.setAccessible(true);
    return f;
  }

  /** Watches a binlog client: its events, and its query events before anyone else sees them. */
  void attach(BinaryLogClient client) throws IllegalAccessException {
    client.registerEventListener(
        event -> {
          // Remembered for the message: the transaction a statement belongs to.
          EventData data = event.getData();
          if (data instanceof MariadbGtidEventData g) {
            lastGtid = g.getDomainId() + "-" + g.getServerId() + "-" + g.getSequence();
          } else if (data instanceof GtidEventData g) {
            lastGtid = g.getGtid();
          }
        });
    // Debezium sets the client's deserializer when streaming begins, after this task started:
    // wrap it on every connection, before the first event is read.
    client.registerLifecycleListener(
        new BinaryLogClient.AbstractLifecycleListener() {
          @Override
          public void onConnect(BinaryLogClient connected) {
            try {
              wrapQueryDeserializer(connected);
            } catch (IllegalAccessException e) {
              throw new IllegalStateException(e);
            }
          }
        });
    if (client.isConnected()) {
      wrapQueryDeserializer(client);
    }
  }

  private void wrapQueryDeserializer(BinaryLogClient client) throws IllegalAccessException {
    EventDeserializer deserializer = (EventDeserializer) deserializerField.get(client);
    EventDataDeserializer<?> current = deserializer.getEventDataDeserializer(EventType.QUERY);
    if (!(current instanceof GuardedQueries)) {
      deserializer.setEventDataDeserializer(EventType.QUERY, new GuardedQueries(current, client));
    }
  }

  /** The failure, once a statement tripped the guard. */
  Optional<RelayFailure> failure() {
    return Optional.ofNullable(failure.get());
  }

  /** Throws the failure once a statement tripped the guard. */
  void check() {
    RelayFailure f = failure.get();
    if (f != null) {
      throw f;
    }
  }

  /**
   * Checks one query event's statement; trips the guard when it changes the outbox table.
   *
   * @return whether it changes the outbox table
   */
  boolean inspect(QueryEventData query, String binlogFile, long binlogPosition) {
    Optional<String> kind =
        StatementTargets.changing(query.getSql(), query.getDatabase(), database, table);
    if (kind.isEmpty()) {
      return false;
    }
    if (failure.get() != null) {
      return true; // the first one is reported
    }
    String gtid = lastGtid;
    failure.compareAndSet(
        null,
        new RelayFailure(
            "a statement-based binlog event changed "
                + database
                + "."
                + table
                + " ("
                + kind.get()
                + " at "
                + binlogFile
                + ":"
                + binlogPosition
                + (gtid != null ? ", GTID " + gtid : "")
                + "): binlog_format STATEMENT or MIXED logs the SQL, not the rows, so these events"
                + " cannot be published; nothing after it was. Set binlog_format=ROW (SET GLOBAL and"
                + " the server's configuration) and reconnect the application, then recover with"
                + " 'outbox-relay handoff --to polling', run polling mode until it has caught up,"
                + " and 'outbox-relay handoff --to cdc' (docs/operations.md: Switching modes; the position in "
                + offsetsTable
                + " moves past the statement then). Until then every restart stops here",
            null));
    return true;
  }

  /** The query-event deserializer, checking each statement before Debezium sees it. */
  private final class GuardedQueries implements EventDataDeserializer<EventData> {
    private final EventDataDeserializer<?> delegate;
    private final BinaryLogClient client;

    GuardedQueries(EventDataDeserializer<?> delegate, BinaryLogClient client) {
      this.delegate = delegate;
      this.client = client;
    }

    @Override
    public EventData deserialize(ByteArrayInputStream inputStream) throws IOException {
      EventData data = delegate.deserialize(inputStream);
      if (data instanceof QueryEventData query) {
        // The client's position is where this event starts: it moved past the previous one.
        if (inspect(query, client.getBinlogFilename(), client.getBinlogPosition())) {
          // The binlog client reports this as an event that cannot be read; Debezium never
          // sees the statement.
          throw new StatementBasedChange(database + "." + table);
        }
      }
      return data;
    }
  }

  /** Keeps a statement-based change of the outbox table away from Debezium. */
  private static final class StatementBasedChange extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StatementBasedChange(String table) {
      super(
          "a statement-based binlog event changed "
              + table
              + ": the relay stops (its own error says what to do)",
          null,
          false,
          false);
    }
  }
}
