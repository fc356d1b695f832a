package io.outboxrelay.relay.admin;

import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.relay.source.HandoffRecords;
import io.outboxrelay.relay.source.ModeOwnership;
import io.outboxrelay.relay.source.cdc.BinlogSnapshot;
import io.outboxrelay.relay.source.cdc.KafkaPosition;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code outbox-relay handoff --to polling} (every relay stopped): the CDC relay published exactly
 * the rows committed before its committed position. A consistent snapshot ({@link BinlogSnapshot})
 * sees the rows committed before its own binlog position; of those, the ones inserted in the binlog
 * between the committed position and the snapshot's ({@link BinlogInserts}) were not published, all
 * others were. Those are marked {@code PUBLISHED}; the rest, and every row committed after the
 * snapshot, stay {@code PENDING} for polling. When the binlog from the committed position is gone
 * (purged) or holds statement-based changes of the table, the rows cannot be told apart by
 * position: rows created before the committed position's last event, less a margin for transactions
 * open then, are marked, and the others published again by polling (consumers deduplicate on the
 * event id).
 *
 * <p>Never waits for the application's transactions: the snapshot sees only committed rows, and
 * rows committed later stay {@code PENDING}. The hand-off is recorded before the marks and finished
 * after them: an interrupted one is finished by running the command again, which reads the same
 * position and marks the same rows. Refused when the table is polling's already. Not thread-safe.
 */
final class HandoffToPolling {

  private static final Logger LOG = LoggerFactory.getLogger(HandoffToPolling.class);

  /** How long the hand-off waits for Kafka with exactly-once delivery. */
  private static final Duration KAFKA_TIMEOUT = Duration.ofSeconds(30);

  private final Handoff h;

  HandoffToPolling(Handoff h) {
    this.h = h;
  }

  /**
   * Hands the table from CDC to polling.
   *
   * @param openTransactions how long a transaction may stay open, for the fallback without binlog
   * @throws AdminException when a relay still runs or the table is polling's already (exit 2), or
   *     the database fails (exit 1)
   */
  void run(Duration openTransactions) throws AdminException {
    h.run(
        c -> {
          handOver(c, openTransactions);
          return null;
        });
  }

  private void handOver(Connection c, Duration openTransactions)
      throws SQLException, AdminException {
    bound(c, "idle_write_transaction_timeout"); // its snapshot stays open, read-only
    Set<String> columns = h.requirePollingColumns(c);
    // The binlog's row images list the columns in table order.
    int idColumn =
        new ArrayList<>(columns).indexOf(h.source.sequenceColumn().toLowerCase(Locale.ROOT));
    RelayPresence.requireNone(c, h.config, "handing the table to polling");
    ModeOwnership.TableState state = h.state(c, columns);
    Handoff.refuse(ModeOwnership.handoffToPollingProblem(state));
    h.ensureRecordTable(c);
    Optional<OffsetsRow> stored =
        OffsetsRow.read(c, h.config.cdc().offsetsTable(), h.config.name(), false);
    List<BinlogServer.BinlogFile> files = BinlogServer.files(c);
    c.commit();
    stored = withKafkasPosition(stored);
    String handedAt =
        HandoffRecords.begin(
            c, h.source, RelayMode.POLLING, h.config.name(), h.operator.name(), false, null);
    c.commit();
    if (stored.isEmpty() || stored.get().file() == null) {
      h.out.println(finishWithoutPosition(h, c, handedAt));
      return;
    }
    OffsetsRow from = stored.get();
    BinlogSnapshot.Position snapshot = BinlogSnapshot.begin(c);
    Instant cutoff =
        from.eventTime() == null ? Instant.EPOCH : from.eventTime().minus(openTransactions);
    String fallback = null;
    Set<Long> unpublished = Set.of();
    if (BinlogServer.indexOf(files, from.file()) < 0) {
      fallback = "binlog file " + from.file() + " was purged";
    } else {
      BinlogInserts.Result r = unpublished(from, snapshot, idColumn);
      if (r.readable()) {
        unpublished = r.ids();
      } else {
        fallback = r.statement();
      }
    }
    long[] seenAndMarked = mark(c, cutoff, fallback, unpublished);
    c.commit();
    long marked = seenAndMarked[1];
    long pending = seenAndMarked[0] - marked;
    String summary =
        marked
            + " rows marked PUBLISHED, "
            + pending
            + " left PENDING (CDC position "
            + from.position()
            + ", snapshot "
            + snapshot
            + (fallback == null ? "" : ", by creation time: " + fallback)
            + ")";
    HandoffRecords.finish(c, h.source, handedAt, summary);
    c.commit();
    LOG.info(
        "operator {} handed {} from CDC relay {} to polling: {} (after {} events and {} rows)",
        h.operator.name(),
        h.table,
        h.config.name(),
        summary,
        from.eventsToSkip(),
        from.rowsToSkip());
    printHanded(
        h,
        marked,
        pending,
        from.position().toString(),
        fallback,
        cutoff,
        "the committed position's last event",
        openTransactions,
        h.config.delivery().exactlyOnce()
            ? " with delivery.guarantee=at-least-once: polling refuses exactly-once, since it"
                + " marks rows PUBLISHED in the database, which no Kafka transaction includes"
            : "");
  }

  /**
   * Ends a hand-off whose relay never committed a CDC position: nothing was published, so no row
   * changes. Records why and commits.
   *
   * @return the line to print
   */
  static String finishWithoutPosition(Handoff h, Connection c, String handedAt)
      throws SQLException {
    String summary =
        "relay "
            + h.config.name()
            + " has no committed CDC position in "
            + h.config.cdc().offsetsTable()
            + ": CDC published nothing, every row stays as it is";
    HandoffRecords.finish(c, h.source, handedAt, summary);
    c.commit();
    return summary + "; start polling";
  }

  /**
   * Prints a finished hand-off to polling: a warning first when the rows were told apart by
   * creation time ({@code fallback} says why), then what was marked and what polling publishes.
   *
   * @param cutoffMeaning what {@code cutoff} is, before {@code --open-transactions} was taken off
   * @param pollingNote said after the advice to start the polling relays ("" for nothing)
   */
  static void printHanded(
      Handoff h,
      long marked,
      long pending,
      String position,
      String fallback,
      Instant cutoff,
      String cutoffMeaning,
      Duration openTransactions,
      String pollingNote) {
    if (fallback != null) {
      h.out.println(
          "warning: "
              + fallback
              + ", so the rows CDC published cannot be told apart by position: rows created"
              + " before "
              + cutoff
              + " ("
              + cutoffMeaning
              + ", less --open-transactions "
              + openTransactions
              + ") are marked PUBLISHED; later ones are published by polling, some of them a"
              + " second time (consumers deduplicate on the event id)");
    }
    h.out.println(
        "handed "
            + h.table
            + " to polling: "
            + marked
            + " rows CDC published (committed before "
            + position
            + ") are PUBLISHED, "
            + pending
            + " rows it did not publish are PENDING, with every row committed since; start the"
            + " polling relays now (outbox-relay run --mode polling)"
            + pollingNote);
  }

  /**
   * With {@code delivery.guarantee=exactly-once}, the position the relay published up to is the one
   * committed in Kafka with its last records: the database's row is written after that commit, and
   * a relay killed in between leaves it behind, so counting from it would leave rows published
   * since it {@code PENDING}, for polling to publish a second time. The relay's transactional id is
   * fenced first (no relay runs, which the hand-off checked): the transaction a killed relay left
   * open is aborted, and the position read is final. Kafka's position replaces the database's where
   * a relay starting now would resume at it ({@link KafkaPosition#resumesAtKafka}).
   *
   * @return the position the relay's publishing ended at
   * @throws AdminException (exit 1) when Kafka does not answer: nothing was changed
   */
  private Optional<OffsetsRow> withKafkasPosition(Optional<OffsetsRow> stored)
      throws SQLException, AdminException {
    String database;
    try {
      database = stored.isEmpty() ? null : Json.MAPPER.writeValueAsString(stored.get().offset());
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e); // parsed from JSON, so it serialises
    }
    Optional<String> kafka = kafkasPosition(h, database);
    if (kafka.isEmpty()) {
      return stored;
    }
    OffsetsRow committed = new OffsetsRow(null, null, OffsetsRow.parseOffset(kafka.get()), null, 0);
    h.out.println(
        "relay "
            + h.config.name()
            + " committed its last records in Kafka with position "
            + committed.position()
            + (stored.isEmpty()
                ? " (the database holds none)"
                : ", later than the database's " + stored.get().position())
            + ": the hand-off counts from Kafka's");
    return Optional.of(committed);
  }

  /**
   * With {@code delivery.guarantee=exactly-once}: the position the relay committed in Kafka, where
   * a relay starting now would resume at it rather than at the database's ({@link
   * KafkaPosition#resumesAtKafka}). The relay's transactional ids are fenced first (no relay runs,
   * which the hand-off checked), so the transaction a killed relay left open is aborted and the
   * position read is final.
   *
   * @param h the hand-off
   * @param database the database's {@code offset_val}, or null when it holds none
   * @return Kafka's position text, or empty where the database's stands (and with at-least-once)
   * @throws AdminException (exit 1) when Kafka does not answer: nothing was changed
   */
  static Optional<String> kafkasPosition(Handoff h, String database) throws AdminException {
    if (!h.config.delivery().exactlyOnce()) {
      return Optional.empty();
    }
    Optional<String> kafka;
    try {
      kafka = new KafkaPosition(h.config, KAFKA_TIMEOUT).readFenced();
    } catch (KafkaPosition.Failure e) {
      throw AdminException.failure(
          "cannot read the position relay "
              + h.config.name()
              + " committed in progress topic "
              + h.config.delivery().progressTopic()
              + " (delivery.guarantee=exactly-once), which the hand-off counts from: "
              + e.getMessage()
              + "; nothing was changed",
          e);
    }
    return kafka.filter(k -> KafkaPosition.resumesAtKafka(k, database));
  }

  private BinlogInserts.Result unpublished(
      OffsetsRow from, BinlogSnapshot.Position snapshot, int idColumn) throws AdminException {
    try {
      boolean queries =
          "true"
              .equalsIgnoreCase(
                  h.config.cdc().debeziumOverrides().getOrDefault("include.query", "false"));
      return new BinlogInserts(h.source, idColumn, queries).read(from, snapshot);
    } catch (IOException e) {
      throw AdminException.failure(
          "reading the binlog from "
              + from.position()
              + " failed, nothing was changed: "
              + Connections.oneLine(e)
              + ". Try again",
          e);
    }
  }

  /**
   * Bounds a session of the hand-off so that it cannot hold the application back: its statements
   * wait at most {@link HandoffToCdc#LOCK_WAIT_SECONDS} for a lock (the marks update rows by
   * primary key in batches of {@link Handoff#BATCH}, at READ COMMITTED, so they lock only those
   * rows), and the server ends the session when this client stops inside a transaction.
   *
   * @param idle the MariaDB variable that ends an idle transaction ({@code
   *     idle_transaction_timeout} or, for a session whose read-only snapshot stays open, {@code
   *     idle_write_transaction_timeout})
   */
  private static void bound(Connection c, String idle) throws SQLException {
    int wait = HandoffToCdc.LOCK_WAIT_SECONDS;
    try (java.sql.Statement s = c.createStatement()) {
      s.execute("SET SESSION lock_wait_timeout = " + wait);
      s.execute("SET SESSION innodb_lock_wait_timeout = " + wait);
      try {
        s.execute("SET SESSION " + idle + " = " + 2 * wait);
      } catch (SQLException e) {
        LOG.debug("{} not set (MySQL has none): {}", idle, e.toString());
      }
    }
  }

  /**
   * Marks the published rows the open snapshot on {@code c} sees, in windows, through a second
   * connection, a short transaction per batch.
   *
   * @return {@code [rows seen, rows marked]}
   */
  private long[] mark(Connection c, Instant cutoff, String fallback, Set<Long> unpublished)
      throws SQLException, AdminException {
    return mark(h, c, cutoff, fallback, unpublished);
  }

  /**
   * Marks the published rows the open snapshot on {@code c} sees, as {@link #mark(Connection,
   * Instant, String, Set)} does, for either database: without a fallback every row but the {@code
   * unpublished} ones, with one the rows created before {@code cutoff}.
   *
   * @return {@code [rows seen, rows marked]}
   */
  static long[] mark(
      Handoff h, Connection c, Instant cutoff, String fallback, Set<Long> unpublished)
      throws SQLException, AdminException {
    long seen = 0;
    long marked = 0;
    try (Connection w = Connections.open(h.source)) {
      w.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      HandoffToCdc.bound(w, h.dialect);
      long after = 0;
      while (true) {
        List<long[]> window = pendingRows(h, c, cutoff, after);
        if (window.isEmpty()) {
          break;
        }
        seen += window.size();
        after = window.get(window.size() - 1)[0];
        List<Long> mark = new ArrayList<>();
        for (long[] row : window) {
          if (fallback == null ? !unpublished.contains(row[0]) : row[1] == 1) {
            mark.add(row[0]);
          }
        }
        for (int i = 0; i < mark.size(); i += Handoff.BATCH) {
          marked += markPublished(h, w, mark.subList(i, Math.min(mark.size(), i + Handoff.BATCH)));
        }
      }
    }
    return new long[] {seen, marked};
  }

  /**
   * The next window of rows {@code PENDING} in the open snapshot, after id {@code after}: {@code
   * [id, created before cutoff ? 1 : 0]}.
   */
  private static List<long[]> pendingRows(Handoff h, Connection c, Instant cutoff, long after)
      throws SQLException {
    List<long[]> rows = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT "
                + h.source.sequenceColumn()
                + ", created_at < "
                + h.dialect.fromEpochSeconds()
                + " FROM "
                + h.sqlTable
                + " WHERE status = 'PENDING' AND "
                + h.source.sequenceColumn()
                + " > ? ORDER BY "
                + h.source.sequenceColumn()
                + " LIMIT "
                + Handoff.BATCH * 10)) {
      ps.setLong(1, cutoff.getEpochSecond());
      ps.setLong(2, after);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(new long[] {rs.getLong(1), rs.getBoolean(2) ? 1 : 0});
        }
      }
    }
    return rows;
  }

  private static int markPublished(Handoff h, Connection c, List<Long> ids) throws SQLException {
    int n =
        h.dialect.executeForIds(
            c,
            "UPDATE "
                + h.sqlTable
                + " SET status = 'PUBLISHED', published_at = "
                + h.dialect.now()
                + " WHERE status = 'PENDING' AND ",
            h.source.sequenceColumn(),
            ids);
    c.commit();
    return n;
  }
}
