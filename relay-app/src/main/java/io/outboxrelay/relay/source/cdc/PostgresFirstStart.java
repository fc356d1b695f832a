package io.outboxrelay.relay.source.cdc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.outboxrelay.relay.config.FirstStartAction;
import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.source.OutboxColumns;
import io.outboxrelay.relay.source.RowLayout;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.postgresql.PGConnection;
import org.postgresql.replication.ReplicationSlotInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first start of a {@code relay.name} on PostgreSQL with {@code cdc.first.start=publish}: the
 * MariaDB rule, nothing already in the table lost and nothing published twice, through PostgreSQL's
 * own pairing of a snapshot with a slot.
 *
 * <p>The relay creates its replication slot itself over a replication connection ({@code
 * CREATE_REPLICATION_SLOT ... LOGICAL pgoutput}, which exports a snapshot). Every transaction that
 * committed before the slot's consistent point is visible in that snapshot, and every one that
 * commits after it is decoded by the slot: the two never overlap and leave nothing out. A second
 * connection imports the snapshot ({@code SET TRANSACTION SNAPSHOT}) and reads the ids of the rows
 * to publish (with a status column, those not {@code PUBLISHED}, {@code DEAD} or {@code SKIPPED}),
 * 8 bytes each; the snapshot ends there, before anything waits for Kafka. The rows are then read by
 * id in windows and published exactly as streamed rows ({@link FirstStart}'s windows, dry run and
 * poison action), and the slot's consistent point is stored as the relay's position (Debezium's
 * PostgreSQL offset, {@code lsn} only), fenced by the leadership epoch, in one transaction; the
 * engine streams from it.
 *
 * <p>Before the slot is made, a marker ({@code {"outbox_relay_first_start": "<when>"}}) is stored
 * under the relay's key, fenced; the position replaces it. A crash in between leaves the marker:
 * the next start drops the slot it made and begins again (the snapshot's rows are published again:
 * duplicates, never loss). The engine never starts on the marker. A slot with nothing stored for
 * the relay (its position deleted, or a slot made by hand) is streamed from as it stands, without a
 * first start. Not thread-safe: one per run.
 */
final class PostgresFirstStart {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresFirstStart.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String DONE = "('PUBLISHED', 'DEAD', 'SKIPPED')";

  private final RelayConfig config;
  private final SourceConfig source;
  private final String holder;
  private final long epoch;
  private final FirstStart windows;
  private final ExactlyOnce exactlyOnce; // null: at-least-once

  /**
   * @param exactlyOnce the term's transactions with {@code delivery.guarantee=exactly-once}: the
   *     position is committed to the progress topic before the database stores it; else null
   */
  PostgresFirstStart(RelayConfig config, String holder, long epoch, ExactlyOnce exactlyOnce) {
    this.config = config;
    this.source = config.source();
    this.holder = holder;
    this.epoch = epoch;
    this.exactlyOnce = exactlyOnce;
    this.windows = new FirstStart(config, holder, epoch, null);
  }

  /** The field of the marker a first start stores under the relay's key while it runs. */
  static final String MARKER = "outbox_relay_first_start";

  /**
   * Whether a run must start with this: Debezium's snapshot mode left to the relay, and either
   * nothing stored for the relay and no slot of its yet (a relay that never ran) with {@code
   * cdc.first.start=publish}, or, whatever that says, the marker of a first start that did not
   * finish or of {@code handoff --to cdc} ({@link HandoffMarker}). A slot without anything stored
   * (the relay's position was deleted, or an operator made the slot) is streamed from as it stands,
   * as Debezium does: it holds every change since it was last confirmed.
   *
   * @param config the relay configuration
   * @param properties the engine's properties
   * @return whether to run the first start
   * @throws SQLException when the stored position cannot be read
   * @throws io.outboxrelay.relay.StartupCheckException when the database refuses the relay's user
   */
  static boolean needed(RelayConfig config, Properties properties)
      throws SQLException, io.outboxrelay.relay.StartupCheckException {
    if (!"no_data".equals(properties.getProperty("snapshot.mode"))) {
      return false;
    }
    try (Connection c = TermConnections.open(config)) {
      String stored = PostgresReplication.storedOffset(c, config);
      if (stored != null && !PostgresReplication.isPosition(stored)) {
        // An unfinished first start, or a hand-off to CDC: whatever cdc.first.start says, the
        // rows polling (or the unfinished start) left are published from a new slot's snapshot.
        return true;
      }
      if (stored != null || config.cdc().firstStart() != FirstStartAction.PUBLISH) {
        return false;
      }
      if (slotExists(c, PostgresReplication.slotName(config.name()))) {
        LOG.info(
            "[{}] relay.name '{}' has replication slot {} but no stored position: streaming from"
                + " the slot as it stands (cdc.first.start=publish applies to a relay without a"
                + " slot)",
            config.logContext(),
            config.name(),
            PostgresReplication.slotName(config.name()));
        return false;
      }
      return true;
    }
  }

  /** Whether a replication slot of that name exists. */
  static boolean slotExists(Connection c, String slot) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT 1 FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /**
   * Creates the slot with its snapshot, publishes the snapshot's rows and stores the slot's start
   * as the relay's position.
   *
   * @param consumer the run's consumer
   * @return true when the position is stored; false when the run stopped or lost leadership first
   * @throws SQLException when the database fails
   * @throws InterruptedException when interrupted
   * @throws io.outboxrelay.relay.StartupCheckException when the database refuses the relay's user
   */
  boolean run(OutboxChangeConsumer consumer)
      throws SQLException, InterruptedException, io.outboxrelay.relay.StartupCheckException {
    String context = config.logContext();
    String slot = PostgresReplication.slotName(config.name());
    String table = source.table();
    try (Connection c = TermConnections.open(config)) {
      String before = PostgresReplication.storedOffset(c, config);
      boolean handoff = before != null && before.contains(HandoffMarker.FIELD);
      // The marker first: a crash from here on leaves it, and the next start begins again.
      c.setAutoCommit(false);
      String startedAt = java.time.Instant.now().toString();
      FirstStart.replacePosition(c, config, marker(startedAt));
      if (!FirstStart.fence(c, config, holder, epoch)) {
        c.rollback();
        return false;
      }
      c.commit();
      c.setAutoCommit(true);
      dropUnfinishedSlot(c, slot, handoff);
      Map<String, OutboxColumns.Column> columns = OutboxColumns.read(c, source);
      String where =
          OutboxColumns.has(columns, "status") ? "e.status NOT IN " + DONE + " AND " : "";
      boolean ordered = OutboxColumns.has(columns, source.sequenceColumn());
      FirstStart.Ids ids;
      long rows;
      String consistentPoint;
      // The position's time, read before the slot exists: see offsetAt.
      long slotMicros = PostgresReplication.databaseMicros(c);
      c.setAutoCommit(false);
      try (Connection replication = PostgresReplication.replicationConnection(config)) {
        ReplicationSlotInfo created =
            replication
                .unwrap(PGConnection.class)
                .getReplicationAPI()
                .createReplicationSlot()
                .logical()
                .withSlotName(slot)
                .withOutputPlugin("pgoutput")
                .make();
        consistentPoint = created.getConsistentPoint().asString();
        try (Statement st = c.createStatement()) {
          st.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
          st.execute("SET TRANSACTION SNAPSHOT '" + created.getSnapshotName() + "'");
        }
        ids = ordered ? windows.ids(c, where) : null;
        rows = ids != null ? ids.size : windows.count(c, where);
        c.commit(); // the snapshot ends before anything waits for Kafka
      }
      if (!ordered && rows > 0) {
        throw new io.outboxrelay.relay.RelayFailure(
            "the first start of relay.name '"
                + config.name()
                + "' cannot publish the "
                + rows
                + " rows already in "
                + table
                + " in order: the table has no column "
                + source.sequenceColumn()
                + " (source.column.sequence) to order them by; add one, or set"
                + " cdc.first.start=skip if they were published elsewhere",
            null);
      }
      c.setAutoCommit(true);
      c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      long vanished = 0;
      if (ids != null && ids.size > 0) {
        RowLayout layout = RowLayout.forSnapshot(source, columns);
        windows.dryRun(c, layout, ids, consumer);
        vanished = windows.publish(c, layout, ids, consumer);
        if (vanished < 0) {
          return false;
        }
      }
      c.setAutoCommit(false);
      // commits: nothing stays open
      String position = offsetAt(c, consistentPoint, slotMicros, startedAt);
      if (exactlyOnce != null && !exactlyOnce.commitPosition(position)) {
        return false; // the run stopped, or Kafka fenced it: the next term starts again
      }
      FirstStart.replacePosition(c, config, position);
      if (!FirstStart.fence(c, config, holder, epoch)) {
        c.rollback();
        LOG.warn(
            "[{}] the first start's position was not stored: leadership of {} is no longer held in"
                + " epoch {}; the next leader starts again",
            context,
            table,
            epoch);
        return false;
      }
      c.commit();
      LOG.info(
          "[{}] first start of relay.name '{}': published {} rows already in {}"
              + " (cdc.first.start=publish), read from the snapshot of replication slot {} at"
              + " LSN {}{}; streaming from there",
          context,
          config.name(),
          rows - vanished,
          table,
          slot,
          consistentPoint,
          vanished > 0 ? " (" + vanished + " rows of the snapshot were gone when read)" : "");
      return true;
    }
  }

  /**
   * A slot left by a first start that did not finish, or from before a hand-off to polling, has no
   * snapshot to pair with any more.
   */
  private void dropUnfinishedSlot(Connection c, String slot, boolean handoff) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE"
                + " slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          LOG.info(
              "[{}] dropped replication slot {}: it is from {} of relay.name '{}', and this start"
                  + " begins with a new slot and its snapshot",
              config.logContext(),
              slot,
              handoff
                  ? "before the table's hand-off to polling"
                  : "a first start that did not finish",
              config.name());
        }
      }
    }
  }

  private static String marker(String startedAt) {
    try {
      return JSON.writeValueAsString(Map.of(MARKER, startedAt));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Debezium's PostgreSQL offset of a position between transactions: the LSN, with a time ({@code
   * ts_usec}) no later than any transaction decoded after it could have begun, less the time it
   * stayed open.
   *
   * <p>The time is read before the slot was made, not when the position is stored: publishing the
   * snapshot's rows may take minutes, and the rows committed meanwhile come after the slot's
   * consistent point, unpublished. When the slot is lost before a later position is stored, {@code
   * handoff --to polling} marks {@code PUBLISHED} the rows created before this time less {@code
   * --open-transactions}: stamped at the store, that would take in every row created in those
   * minutes. Stamped before the slot, a row committed after the consistent point is marked only if
   * its transaction began before the slot was asked for and stayed open longer than {@code
   * --open-transactions}, the bound the operator gives. It also names the first start that stored
   * it ({@link CommittedPosition#FIRST_START_OF}).
   */
  private static String offsetAt(Connection c, String lsn, long micros, String startedAt)
      throws SQLException {
    c.commit();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("lsn", PostgresReplication.lsnNumber(lsn));
    m.put("ts_usec", micros);
    m.put(CommittedPosition.FIRST_START_OF, startedAt);
    try {
      return JSON.writeValueAsString(m);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e); // numbers always serialise
    }
  }
}
