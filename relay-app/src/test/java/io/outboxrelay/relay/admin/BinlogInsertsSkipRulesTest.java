package io.outboxrelay.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventData;
import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.RotateEventData;
import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.WriteRowsEventData;
import io.debezium.config.Configuration;
import io.debezium.connector.mariadb.MariaDbConnectorConfig;
import io.debezium.connector.mariadb.MariaDbOffsetContext;
import io.outboxrelay.relay.config.Secret;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.config.SourceFlavor;
import io.outboxrelay.relay.source.cdc.BinlogSnapshot;
import io.outboxrelay.relay.testing.UpstreamClass;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Holds {@link BinlogInserts}' restart rules to Debezium's. For every row Debezium publishes, the
 * offset it stores with that row (computed by Debezium's own {@code MariaDbOffsetContext}, driven
 * with the calls its streaming source makes per binlog event) is taken as a stored position, and
 * the reader must collect exactly the rows after that one. The calls are Debezium 3.5.0's; the
 * fingerprints below pin the code that makes them, so that a Debezium version that changes how it
 * counts fails here: then re-read {@code BinlogStreamingChangeEventSource} (its {@code
 * handleEvent}, {@code handleChange}, {@code handleTransactionBegin}), the MariaDB {@code
 * handleGtidEvent} and {@code BinlogOffsetContext}, update {@link #drive} and {@code BinlogInserts}
 * to match, then record the new fingerprints.
 */
class BinlogInsertsSkipRulesTest {

  private static final String FILE = "mariadb-bin.000007";
  private static final long OUTBOX = 41;
  private static final long OTHER = 42;

  private static final String RECHECK =
      "%s changed in this Debezium version (%s): re-check BinlogInserts' skip rules against it"
          + " (docs/upgrading.md), then record the fingerprint %s here";

  /** A binlog: two transactions, the first with two inserts on the outbox and one elsewhere. */
  private static List<Event> binlog() {
    List<Event> events = new ArrayList<>();
    long[] pos = {4};
    events.add(event(EventType.ROTATE, 0, 0, rotate()));
    events.add(event(EventType.MARIADB_GTID, pos, 40, null));
    events.add(event(EventType.TABLE_MAP, pos, 50, tableMap(OUTBOX, "shop", "outbox_events")));
    events.add(event(EventType.WRITE_ROWS, pos, 300, rows(OUTBOX, 1, 2, 3)));
    events.add(event(EventType.TABLE_MAP, pos, 50, tableMap(OTHER, "shop", "orders")));
    events.add(event(EventType.WRITE_ROWS, pos, 100, rows(OTHER, 900, 901)));
    events.add(event(EventType.TABLE_MAP, pos, 50, tableMap(OUTBOX, "shop", "outbox_events")));
    events.add(event(EventType.WRITE_ROWS, pos, 200, rows(OUTBOX, 4, 5)));
    events.add(event(EventType.XID, pos, 30, null));
    events.add(event(EventType.MARIADB_GTID, pos, 40, null));
    events.add(event(EventType.TABLE_MAP, pos, 50, tableMap(OUTBOX, "shop", "outbox_events")));
    events.add(event(EventType.WRITE_ROWS, pos, 100, rows(OUTBOX, 6)));
    events.add(event(EventType.XID, pos, 30, null));
    return events;
  }

  @Test
  void aStoredPositionInsideATransactionSkipsExactlyTheRowsDebeziumPublished() {
    List<Event> binlog = binlog();
    Map<Long, Map<String, ?>> offsetOfRow = drive(binlog);
    assertThat(offsetOfRow).hasSize(8); // 1-6 and the two rows of orders
    // Row 2 of the first insert: skip the GTID and table map events, then two rows.
    assertThat(offsetOfRow.get(2L).get("event")).isEqualTo(2L);
    assertThat(offsetOfRow.get(2L).get("row")).isEqualTo(2L);

    for (long published = 1; published <= 6; published++) {
      Map<String, ?> offset = offsetOfRow.get(published);
      OffsetsRow start = new OffsetsRow("id", "key", new HashMap<>(offset), null, 1);
      BinlogInserts.Collector reader =
          new BinlogInserts(source(), 0, false)
              .collector(start, new BinlogSnapshot.Position(FILE, 1_000_000));
      binlog.stream()
          .filter(e -> e.getHeader().getEventType() == EventType.ROTATE || at(e) >= start.pos())
          .forEach(reader::accept);
      long p = published;
      Set<Long> expected =
          Set.of(1L, 2L, 3L, 4L, 5L, 6L).stream()
              .filter(id -> id > p)
              .collect(Collectors.toCollection(TreeSet::new));
      assertThat(new TreeSet<>(reader.result().ids()))
          .as("after row %d was published (stored offset %s)", published, offset)
          .isEqualTo(expected);
    }
  }

  @Test
  void debeziumReadsTheSkipsFromTheKeysTheReaderReads() {
    Map<String, Object> stored = new LinkedHashMap<>();
    stored.put("file", FILE);
    stored.put("pos", 123L);
    stored.put("event", 3L);
    stored.put("row", 2);
    OffsetsRow position = new OffsetsRow("id", "key", stored, null, 1);
    MariaDbOffsetContext loaded = new MariaDbOffsetContext.Loader(connectorConfig()).load(stored);
    assertThat(loaded.eventsToSkipUponRestart()).isEqualTo(position.eventsToSkip());
    assertThat((long) loaded.rowsToSkipUponRestart()).isEqualTo(position.rowsToSkip());
    assertThat(loaded.getSource().binlogFilename()).isEqualTo(position.file());
    assertThat(loaded.getSource().binlogPosition()).isEqualTo(position.pos());
  }

  @Test
  void debeziumStreamingSourceCountsAsThisTestDrivesIt() {
    assertUnchanged(
        "io.debezium.connector.binlog.BinlogStreamingChangeEventSource",
        "15a8472e5b59576f",
        "handleEvent",
        "handleChange",
        "handleTransactionBegin",
        "handleTransactionCompletion");
  }

  @Test
  void debeziumMariaDbSourceBeginsTheTransactionAtItsGtidEvent() {
    assertUnchanged(
        "io.debezium.connector.mariadb.MariaDbStreamingChangeEventSource",
        "65c7181fc23624b8",
        "handleGtidEvent");
  }

  @Test
  void debeziumOffsetContextCountsAsThisTestDrivesIt() {
    assertUnchanged(
        "io.debezium.connector.binlog.BinlogOffsetContext",
        "8c130344cc389698",
        "startNextTransaction",
        "commitTransaction",
        "completeEvent",
        "setEventPosition",
        "setRowNumber",
        "changeEventCompleted",
        "offsetUsingPosition",
        "setInitialSkips");
  }

  /**
   * Drives Debezium's offset context through a binlog as {@code
   * BinlogStreamingChangeEventSource.handleEvent} does (3.5.0), and returns the offset stored with
   * each row's change event, by row id.
   */
  private static Map<Long, Map<String, ?>> drive(List<Event> binlog) {
    MariaDbOffsetContext offset = MariaDbOffsetContext.initial(connectorConfig());
    offset.setBinlogStartPoint(FILE, 4);
    Map<Long, Map<String, ?>> byRow = new LinkedHashMap<>();
    for (Event event : binlog) {
      EventType type = event.getHeader().getEventType();
      if (type == EventType.ROTATE) {
        offset.setBinlogStartPoint(FILE, 4);
      } else {
        EventHeaderV4 h = event.getHeader();
        offset.setEventPosition(h.getPosition(), h.getEventLength());
      }
      switch (type) {
        case MARIADB_GTID -> offset.startNextTransaction(); // handleTransactionBegin
        case XID -> offset.commitTransaction(); // handleTransactionCompletion
        case WRITE_ROWS -> {
          List<Serializable[]> rows = ((WriteRowsEventData) event.getData()).getRows();
          for (int i = 0; i < rows.size(); i++) {
            offset.setRowNumber(i, rows.size());
            byRow.put(((Number) rows.get(i)[0]).longValue(), offset.getOffset());
          }
          offset.changeEventCompleted();
        }
        default -> {
          // TABLE_MAP and the rotation change no count
        }
      }
      offset.completeEvent();
    }
    return byRow;
  }

  private static void assertUnchanged(String className, String expected, String... methods) {
    UpstreamClass upstream = UpstreamClass.of(className);
    String actual = upstream.fingerprint(methods);
    assertThat(actual)
        .as(RECHECK, className + " " + String.join("/", methods), upstream.location(), actual)
        .isEqualTo(expected);
  }

  private static MariaDbConnectorConfig connectorConfig() {
    return new MariaDbConnectorConfig(
        Configuration.create()
            .with("topic.prefix", "relay")
            .with("database.server.id", 5400)
            .with("database.hostname", "127.0.0.1")
            .build());
  }

  private static SourceConfig source() {
    return io.outboxrelay.relay.config.Sources.of(
        SourceFlavor.MARIADB,
        "127.0.0.1",
        3306,
        "shop",
        "relay",
        new Secret("unused"),
        "outbox_events",
        Duration.ofSeconds(1));
  }

  private static long at(Event e) {
    return ((EventHeaderV4) e.getHeader()).getPosition();
  }

  private static Event event(EventType type, long[] pos, long length, EventData data) {
    Event e = event(type, pos[0], length, data);
    pos[0] += length;
    return e;
  }

  private static Event event(EventType type, long position, long length, EventData data) {
    EventHeaderV4 h = new EventHeaderV4();
    h.setEventType(type);
    h.setEventLength(length);
    h.setNextPosition(position + length);
    return new Event(h, data);
  }

  private static RotateEventData rotate() {
    RotateEventData r = new RotateEventData();
    r.setBinlogFilename(FILE);
    r.setBinlogPosition(4);
    return r;
  }

  private static TableMapEventData tableMap(long id, String database, String table) {
    TableMapEventData m = new TableMapEventData();
    m.setTableId(id);
    m.setDatabase(database);
    m.setTable(table);
    return m;
  }

  private static WriteRowsEventData rows(long table, long... ids) {
    WriteRowsEventData w = new WriteRowsEventData();
    w.setTableId(table);
    List<Serializable[]> rows = new ArrayList<>();
    for (long id : ids) {
      rows.add(new Serializable[] {id, "payload"});
    }
    w.setRows(rows);
    return w;
  }
}
