package io.outboxrelay.relay.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.relay.source.HandoffRecords;
import io.outboxrelay.relay.source.ModeOwnership;
import io.outboxrelay.relay.source.cdc.PostgresReplication;
import io.outboxrelay.relay.source.cdc.SlotInserts;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code outbox-relay handoff --to polling} on PostgreSQL (every relay stopped). The CDC relay
 * published exactly the transactions that committed before its position: the later of its stored
 * {@code lsn_commit} and its slot's {@code confirmed_flush_lsn}. A REPEATABLE READ snapshot sees
 * the rows committed before it; the server's WAL insert position read inside it is past all of
 * their commits. Of those rows, the ones the slot still holds from transactions committing at or
 * after the position ({@link SlotInserts}, read once the WAL is flushed to that point) were not
 * published; every other one was, and is marked {@code PUBLISHED}. Rows committed after the
 * snapshot stay {@code PENDING}. Then the slot is dropped: polling needs none, and a slot nobody
 * reads holds the server's WAL without bound.
 *
 * <p>When the slot is gone or PostgreSQL invalidated it ({@code wal_status=lost}, e.g. {@code
 * max_slot_wal_keep_size}), the rows cannot be told apart by position: rows created before the
 * stored position's time less {@code --open-transactions} are marked, and the others published
 * again by polling (consumers deduplicate on the event id); the table is not published whole. This
 * is the recovery of an invalidated or dropped slot, with {@code handoff --to cdc} after it.
 *
 * <p>With {@code delivery.guarantee=exactly-once} the position is the one the relay committed in
 * Kafka where a relay starting now would resume at it ({@link HandoffToPolling#kafkasPosition}):
 * the database's row is written after that commit and lags it after a crash.
 *
 * <p>Never waits for the application's transactions, and the hand-off is recorded before the marks
 * and finished after them, as on MariaDB ({@link HandoffToPolling}): an interrupted one is finished
 * by running it again while the slot is still there. Not thread-safe.
 */
final class SlotHandoffToPolling {

  private static final Logger LOG = LoggerFactory.getLogger(SlotHandoffToPolling.class);

  /** How long the WAL may take to be flushed up to the snapshot's position. */
  private static final Duration FLUSH_WAIT = Duration.ofSeconds(10);

  private final Handoff h;

  SlotHandoffToPolling(Handoff h) {
    this.h = h;
  }

  void run(Duration openTransactions) throws AdminException {
    h.run(
        c -> {
          handOver(c, openTransactions);
          return null;
        });
  }

  /** The slot as it stands: {@code confirmed_flush_lsn} (a number) and {@code wal_status}. */
  private record Slot(long confirmed, String walStatus) {}

  private void handOver(Connection c, Duration openTransactions)
      throws SQLException, AdminException {
    HandoffToCdc.bound(c, h.dialect);
    Set<String> columns = h.requirePollingColumns(c);
    RelayPresence.requireNone(c, h.config, "handing the table to polling");
    ModeOwnership.TableState state = h.state(c, columns);
    Handoff.refuse(ModeOwnership.handoffToPollingProblem(state));
    h.ensureRecordTable(c);
    String stored = PostgresReplication.storedOffset(c, h.config);
    String slotName = PostgresReplication.slotName(h.config.name());
    Slot slot = slot(c, slotName);
    c.commit();
    // Exactly-once: the relay published up to the position it committed in Kafka, which the
    // database's row may lag (a relay killed between the two commits).
    java.util.Optional<String> kafka = HandoffToPolling.kafkasPosition(h, stored);
    if (kafka.isPresent()) {
      h.out.println(
          "relay "
              + h.config.name()
              + " committed its last records in Kafka with position "
              + KafkaCommitted.lsnText(OffsetsRow.parseOffset(kafka.get()))
              + (PostgresReplication.isPosition(stored)
                  ? ", later than the database's "
                      + KafkaCommitted.lsnText(OffsetsRow.parseOffset(stored))
                  : stored == null ? " (the database holds none)" : "")
              + ": the hand-off counts from Kafka's");
      stored = kafka.get();
    }
    String handedAt =
        HandoffRecords.begin(
            c, h.source, RelayMode.POLLING, h.config.name(), h.operator.name(), false, null);
    c.commit();
    if (!PostgresReplication.isPosition(stored)) {
      String done = HandoffToPolling.finishWithoutPosition(h, c, handedAt);
      dropSlot(c, slot, slotName); // once the hand-off is recorded as finished
      h.out.println(done);
      return;
    }
    JsonNode offset;
    try {
      offset = Json.MAPPER.readTree(stored);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw AdminException.failure(
          "the stored position of relay " + h.config.name() + " is not JSON; nothing was marked",
          e);
    }
    long position =
        offset.hasNonNull("lsn_commit")
            ? offset.get("lsn_commit").asLong()
            : offset.path("lsn").asLong();
    if (slot != null && Long.compareUnsigned(slot.confirmed(), position) > 0) {
      position = slot.confirmed(); // confirmed after Kafka acknowledged, ahead of the stored row
    }
    Instant positionTime =
        offset.hasNonNull("ts_usec")
            ? Instant.EPOCH.plusNanos(offset.get("ts_usec").asLong() * 1000)
            : Instant.EPOCH;
    Instant cutoff = positionTime.minus(openTransactions);

    // The snapshot, and a WAL position past every commit it sees.
    c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    String snapshot = single(c, "SELECT pg_current_wal_insert_lsn()::text");
    // Idle while the slot is read, holding a snapshot and no lock: the bound comes back after.
    setIdleBound(c, 0);
    long txId = offset.hasNonNull("txId") ? offset.get("txId").asLong() : -1;
    long processed = offset.hasNonNull("lsn_proc") ? offset.get("lsn_proc").asLong() : -1;
    Unpublished u = unpublished(slot, slotName, snapshot, position, txId, processed);
    String fallback = u.fallback();
    Set<Long> unpublished = u.ids();
    long transactions = u.transactions();
    setIdleBound(c, 2 * HandoffToCdc.LOCK_WAIT_SECONDS);
    long[] seenAndMarked = HandoffToPolling.mark(h, c, cutoff, fallback, unpublished);
    c.commit();
    c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
    long marked = seenAndMarked[1];
    long pending = seenAndMarked[0] - marked;
    String at = lsn(c, position);
    String summary =
        marked
            + " rows marked PUBLISHED, "
            + pending
            + " left PENDING (CDC position "
            + at
            + ", snapshot at WAL "
            + snapshot
            + (fallback == null
                ? ", "
                    + unpublished.size()
                    + " rows in "
                    + transactions
                    + " transactions of the slot"
                : ", by creation time: " + fallback)
            + ")";
    HandoffRecords.finish(c, h.source, handedAt, summary);
    c.commit();
    LOG.info(
        "operator {} handed {} from CDC relay {} to polling: {}",
        h.operator.name(),
        h.table,
        h.config.name(),
        summary);
    dropSlot(c, slot, slotName);
    HandoffToPolling.printHanded(
        h,
        marked,
        pending,
        at,
        fallback,
        cutoff,
        "the stored position's time",
        openTransactions,
        ", or hand the table back with 'outbox-relay handoff --to cdc'");
  }

  /** What the slot holds that was not published, or why it cannot tell. */
  private record Unpublished(Set<Long> ids, long transactions, String fallback) {}

  private Unpublished unpublished(
      Slot slot, String slotName, String snapshot, long position, long txId, long processed)
      throws SQLException, AdminException {
    if (slot == null) {
      return new Unpublished(
          Set.of(), 0, "replication slot " + slotName + " does not exist (it was dropped)");
    }
    if ("lost".equals(slot.walStatus())) {
      return new Unpublished(
          Set.of(),
          0,
          "replication slot " + slotName + " was invalidated by PostgreSQL (wal_status=lost)");
    }
    try (Connection w = Connections.open(h.source)) {
      awaitFlushed(w, snapshot);
      SlotInserts.Result r = SlotInserts.read(w, h.config, position, txId, processed);
      if (r.readable()) {
        return new Unpublished(r.ids(), r.transactions(), null);
      }
      return new Unpublished(
          Set.of(),
          0,
          "replication slot " + slotName + " cannot give its changes: " + r.unreadable());
    }
  }

  private void setIdleBound(Connection c, int seconds) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(h.dialect.idleTransactionTimeout(seconds));
    }
  }

  private static Slot slot(Connection c, String name) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT (confirmed_flush_lsn - '0/0'::pg_lsn)::bigint, wal_status FROM"
                + " pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new Slot(rs.getLong(1), rs.getString(2)) : null;
      }
    }
  }

  /** Waits until the WAL is flushed up to {@code lsn}: the slot is read only up to the flush. */
  private static void awaitFlushed(Connection w, String lsn) throws SQLException, AdminException {
    long deadline = System.nanoTime() + FLUSH_WAIT.toNanos();
    try (PreparedStatement ps =
        w.prepareStatement("SELECT pg_current_wal_flush_lsn() >= CAST(? AS pg_lsn)")) {
      ps.setString(1, lsn);
      while (true) {
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (rs.getBoolean(1)) {
            w.commit();
            return;
          }
        }
        w.commit();
        if (System.nanoTime() > deadline) {
          throw AdminException.failure(
              "the server's WAL was not flushed up to "
                  + lsn
                  + " within "
                  + FLUSH_WAIT.toSeconds()
                  + " s, so the slot cannot be read up to the snapshot; nothing was marked. Try"
                  + " again",
              null);
        }
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw AdminException.failure("interrupted; nothing was marked. Try again", e);
        }
      }
    }
  }

  /**
   * Drops the relay's slot after the hand-off: polling reads none, and a slot without a reader
   * holds the WAL from its position for ever. {@code handoff --to cdc} makes the next CDC start
   * create a new one.
   */
  private void dropSlot(Connection c, Slot slot, String name) throws SQLException {
    if (slot == null) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
      ps.setString(1, name);
      ps.execute();
      c.commit();
      h.out.println(
          "dropped replication slot " + name + ": polling needs none, and it would hold the WAL");
    } catch (SQLException e) {
      c.rollback();
      h.out.println(
          "warning: replication slot "
              + name
              + " could not be dropped ("
              + Connections.oneLine(e)
              + "); it holds the server's WAL until it is: SELECT pg_drop_replication_slot('"
              + name
              + "')");
    }
  }

  private static String lsn(Connection c, long numeric) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT ('0/0'::pg_lsn + ?)::text")) {
      ps.setLong(1, numeric);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        String text = rs.getString(1);
        c.commit();
        return text;
      }
    }
  }

  private static String single(Connection c, String sql) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
