package io.outboxrelay.relay.admin;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.QueryEventData;
import com.github.shyiko.mysql.binlog.event.RotateEventData;
import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.WriteRowsEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.source.cdc.BinlogSnapshot;
import java.io.IOException;
import java.io.Serializable;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The outbox rows inserted in a range of the binlog, read as a replica reads it: the rows a stopped
 * CDC relay had not yet published when its committed position is the start of the range.
 *
 * <p>The start is a position Debezium stored: the binlog transaction there may have been published
 * in part (its offset's {@code event} and {@code row}). Debezium, resuming, skips that many events
 * of the transaction, counting from its first (the GTID event), then that many rows of the next
 * insert; this reader reads the same events (the same binlog client library, asking for them the
 * same way) and counts the same, so what it collects is exactly what the relay would publish next.
 * Statement-based changes of the outbox table, or DDL on it, make the range unreadable ({@link
 * Result#readable()} false): then the rows cannot be known from the binlog. Not thread-safe.
 */
final class BinlogInserts {

  /**
   * What a range holds.
   *
   * @param ids the ids of outbox rows inserted in it, less those the start skips
   * @param readable false when a statement in it changed the outbox table without row images
   * @param statement the first such statement's kind and position, for the message, or null
   */
  record Result(Set<Long> ids, boolean readable, String statement) {}

  /** Statements that change rows or a table's layout, by their first word. */
  private static final Set<String> CHANGES =
      Set.of("INSERT", "REPLACE", "LOAD", "ALTER", "TRUNCATE", "DROP", "RENAME");

  private final SourceConfig source;
  private final int idColumn;
  private final boolean annotateRows;

  /**
   * A reader.
   *
   * @param source where to read, as whom
   * @param idColumn the 0-based position of {@code id} among the outbox table's columns
   * @param annotateRows whether the relay asks for ANNOTATE_ROWS events ({@code
   *     debezium.include.query=true}): they count among the events it skips
   */
  /**
   * The binlog client logs its connection lifecycle through java.util.logging, which an admin
   * command would print to the terminal in JUL's two-line format; what matters reaches the command
   * as an exception. Held here: JUL keeps only weak references to its loggers.
   */
  private static final java.util.logging.Logger CLIENT_LOG =
      java.util.logging.Logger.getLogger("com.github.shyiko.mysql.binlog");

  static {
    CLIENT_LOG.setLevel(java.util.logging.Level.OFF);
  }

  BinlogInserts(SourceConfig source, int idColumn, boolean annotateRows) {
    this.source = source;
    this.idColumn = idColumn;
    this.annotateRows = annotateRows;
  }

  /**
   * Reads from a stored position up to {@code end}.
   *
   * @param start the stored position
   * @param end where to stop: events at or after it are not read
   * @return the rows
   * @throws IOException when the binlog cannot be read
   */
  Result read(OffsetsRow start, BinlogSnapshot.Position end) throws IOException {
    BinaryLogClient client =
        new BinaryLogClient(
            source.host(), source.port(), source.user(), source.password().reveal());
    // Not a replica's id, nor the relay's: a reader with the same id would push the other off.
    client.setServerId(4_000_000_000L + ThreadLocalRandom.current().nextLong(200_000_000L));
    client.setBinlogFilename(start.file());
    client.setBinlogPosition(start.pos());
    client.setBlocking(false); // the server ends the stream at the end of its binlog
    client.setKeepAlive(false);
    client.setMariaDbSlaveCapability(4); // as Debezium's MariaDB connector: GTID events
    client.setUseSendAnnotateRowsEvent(annotateRows);
    EventDeserializer deserializer = new EventDeserializer();
    deserializer.setCompatibilityMode(
        EventDeserializer.CompatibilityMode.CHAR_AND_BINARY_AS_BYTE_ARRAY);
    client.setEventDeserializer(deserializer);
    Collector collector = collector(start, end);
    client.registerEventListener(collector::accept);
    client.connect();
    if (collector.failure != null) {
      throw collector.failure;
    }
    return collector.result();
  }

  /**
   * What follows the stream from {@code start}: fed every event read, in order.
   *
   * @param start the stored position
   * @param end where to stop
   * @return a collector with nothing seen yet
   */
  Collector collector(OffsetsRow start, BinlogSnapshot.Position end) {
    return new Collector(start, end);
  }

  /**
   * Follows the stream; runs on the caller's thread inside {@code connect()}. Its skip rules are
   * Debezium's ({@code BinlogStreamingChangeEventSource} and {@code BinlogOffsetContext}); {@code
   * BinlogInsertsSkipRulesTest} holds them to Debezium's own offset context and pins the code of
   * Debezium's they copy.
   */
  final class Collector {
    private final BinlogSnapshot.Position end;
    private final long eventsToSkip;
    private long rowsToSkip;
    private final Set<Long> ids = new HashSet<>();
    private final Map<Long, Boolean> outboxTables = new HashMap<>();
    private String file;
    private boolean past;
    private boolean firstTransaction = true;
    private boolean inFirstTransaction;
    private long eventIndex;
    private boolean rowsSkipApplied;
    private String statement;
    private IOException failure;

    Collector(OffsetsRow start, BinlogSnapshot.Position end) {
      this.end = end;
      this.file = start.file();
      this.eventsToSkip = start.eventsToSkip();
      this.rowsToSkip = start.rowsToSkip();
    }

    /** What was collected so far. */
    Result result() {
      return new Result(ids, statement == null, statement);
    }

    void accept(Event event) {
      EventType type = event.getHeader().getEventType();
      if (type == EventType.ROTATE) {
        RotateEventData r = event.getData();
        file = r.getBinlogFilename();
        return;
      }
      if (past || !(event.getHeader() instanceof EventHeaderV4 h) || h.getPosition() <= 0) {
        return;
      }
      if (new BinlogSnapshot.Position(file, h.getPosition()).atOrAfter(end).orElse(true)) {
        past = true;
        return;
      }
      boolean begin =
          type == EventType.MARIADB_GTID
              || type == EventType.GTID
              || (type == EventType.QUERY
                  && "BEGIN".equalsIgnoreCase(((QueryEventData) event.getData()).getSql()));
      if (begin && firstTransaction) {
        firstTransaction = false;
        inFirstTransaction = true;
        eventIndex = 0;
      } else if (begin) {
        inFirstTransaction = false;
      }
      boolean skipWhole = inFirstTransaction && eventIndex < eventsToSkip;
      if (inFirstTransaction) {
        eventIndex++;
      }
      if (type == EventType.XID) {
        inFirstTransaction = false;
      }
      switch (type) {
        case TABLE_MAP -> {
          TableMapEventData m = event.getData();
          outboxTables.put(
              m.getTableId(),
              m.getDatabase().equalsIgnoreCase(source.database())
                  && m.getTable().equalsIgnoreCase(source.table()));
        }
        case WRITE_ROWS, EXT_WRITE_ROWS -> {
          if (skipWhole) {
            return;
          }
          WriteRowsEventData w = event.getData();
          long skip = 0;
          if (!rowsSkipApplied) {
            // Debezium applies the row skip to the first insert it handles after the skipped
            // events, whichever table it is on.
            rowsSkipApplied = true;
            skip = rowsToSkip;
          }
          if (!outboxTables.getOrDefault(w.getTableId(), false)) {
            return;
          }
          int index = includedIndex(w);
          long n = 0;
          for (Serializable[] row : w.getRows()) {
            if (n++ < skip) {
              continue;
            }
            ids.add(((Number) row[index]).longValue());
          }
        }
        case QUERY -> {
          String sql = ((QueryEventData) event.getData()).getSql();
          if (statement == null && mentionsOutbox(sql)) {
            statement =
                firstWord(sql)
                    + " at "
                    + file
                    + ":"
                    + h.getPosition()
                    + " changed the outbox table";
          }
        }
        default -> {
          // other events carry nothing about outbox inserts
        }
      }
    }

    private int includedIndex(WriteRowsEventData w) {
      if (w.getIncludedColumns() == null) {
        return idColumn;
      }
      int index = 0;
      for (int i = 0; i < idColumn; i++) {
        if (w.getIncludedColumns().get(i)) {
          index++;
        }
      }
      return index;
    }

    /** A statement-based change or DDL that names the outbox table. */
    private boolean mentionsOutbox(String sql) {
      String s = sql.trim().toUpperCase(Locale.ROOT);
      return CHANGES.contains(firstWord(s)) && s.contains(source.table().toUpperCase(Locale.ROOT));
    }

    private String firstWord(String sql) {
      String s = sql.trim();
      int space = s.indexOf(' ');
      return (space < 0 ? s : s.substring(0, space)).toUpperCase(Locale.ROOT);
    }
  }
}
