package io.outboxrelay.relay.admin;

import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.source.OutboxColumns;
import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.router.ColumnMapping;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The operator statements over the outbox table, in the polling relay's conventions: the columns as
 * {@code source.column.*} names them (rows named by the sequence column), the dialect's clock, id
 * lists and claim token, and a released row's {@code claim_token} and {@code processing_until} (see
 * {@code OutboxStore}). Every change is conditional on {@code status = 'DEAD'}: polling workers
 * never claim or finish a DEAD row, so a change here cannot race one. The caller owns the
 * connection and its transaction. Not thread-safe.
 */
final class OutboxTable {

  /** The statuses that are not published, in the order the commands print them. */
  static final List<String> OPEN_STATUSES = List.of("PENDING", "PROCESSING", "DEAD", "SKIPPED");

  /** How many ids one UPDATE names. */
  private static final int CHUNK = 500;

  private final Connection connection;
  private final SqlDialect dialect;
  private final String table;
  private final String id;
  private final ColumnMapping mapping;
  private final String columns;

  /** The table of the relay's own layout. */
  OutboxTable(Connection connection, SqlDialect dialect, String table) {
    this(connection, dialect, table, "id", ColumnMapping.DEFAULT);
  }

  /** The source's table, its columns as {@code source.column.*} names them. */
  OutboxTable(Connection connection, SqlDialect dialect, SourceConfig source) {
    this(connection, dialect, source.table(), source.sequenceColumn(), source.columns());
  }

  /**
   * The source's table, after checking that it has every column the settings name: a column the
   * mapping names but the table lacks is one line naming the key and the column (exit code 2)
   * rather than the database's error in the middle of a command. A table that is not there at all
   * is left to the command's own statements, which say so.
   *
   * @param connection the command's connection
   * @param dialect the database's dialect
   * @param source the source settings
   * @return the table
   * @throws SQLException when the catalog cannot be read
   * @throws AdminException (usage) when a mapped column is missing
   */
  static OutboxTable checked(Connection connection, SqlDialect dialect, SourceConfig source)
      throws SQLException, AdminException {
    Map<String, OutboxColumns.Column> columns = OutboxColumns.read(connection, source);
    if (!columns.isEmpty()) {
      List<String> missing =
          OutboxColumns.missingProblems(
              columns, source, RelayMode.POLLING, source.table(), dialect.outboxSchemaFile());
      if (!missing.isEmpty()) {
        throw AdminException.usage(String.join("; ", missing) + "; nothing was changed");
      }
    }
    return new OutboxTable(connection, dialect, source);
  }

  private OutboxTable(
      Connection connection, SqlDialect dialect, String table, String id, ColumnMapping mapping) {
    this.connection = connection;
    this.dialect = dialect;
    this.table = table;
    this.id = id;
    this.mapping = mapping;
    this.columns =
        id
            + ", "
            + dialect.text(mapping.eventId())
            + ", "
            + mapping.eventType()
            + ", "
            + mapping.aggregateType()
            + ", "
            + mapping.aggregateId()
            + ", status, attempts, created_at,"
            + " next_attempt_at, processing_until, published_at, last_error";
  }

  /**
   * DEAD rows the filter selects, oldest id first, at most {@code limit + 1} of them so the caller
   * can tell whether more match.
   */
  List<OutboxRow> dead(DeadFilter filter, boolean lock) throws SQLException {
    StringBuilder sql =
        new StringBuilder("SELECT ")
            .append(columns)
            .append(" FROM ")
            .append(table)
            .append(" WHERE status = 'DEAD'");
    List<Object> params = new ArrayList<>();
    if (filter.eventType() != null) {
      sql.append(" AND ").append(mapping.eventType()).append(" = ?");
      params.add(filter.eventType());
    }
    if (filter.aggregateType() != null) {
      sql.append(" AND ").append(mapping.aggregateType()).append(" = ?");
      params.add(filter.aggregateType());
    }
    if (filter.aggregateId() != null) {
      sql.append(" AND ").append(mapping.aggregateId()).append(" = ?");
      params.add(filter.aggregateId());
    }
    Since since = filter.since();
    if (since != null && since.ago() != null) {
      sql.append(" AND created_at >= ").append(dialect.nowMinus());
      params.add(since.ago());
    } else if (since != null) {
      sql.append(" AND created_at >= ?");
      params.add(Timestamp.from(since.at()));
    }
    sql.append(" ORDER BY ").append(id).append(" LIMIT ?");
    params.add(filter.limit() + 1);
    if (lock) {
      sql.append(" FOR UPDATE");
    }
    try (PreparedStatement ps = connection.prepareStatement(sql.toString())) {
      int i = 1;
      for (Object p : params) {
        if (p instanceof java.time.Duration d) {
          dialect.bindDuration(ps, i++, d);
        } else {
          ps.setObject(i++, p);
        }
      }
      return read(ps, false);
    }
  }

  /**
   * The row an operator named, if it exists.
   *
   * @throws IllegalArgumentException when the event id cannot be one of this database's
   */
  Optional<OutboxRow> find(EventRef ref, boolean payload, boolean lock) throws SQLException {
    String sql =
        "SELECT "
            + columns
            + (payload ? ", " + dialect.text(mapping.payload()) : "")
            + " FROM "
            + table
            + " WHERE "
            + (ref.id() != null ? id : mapping.eventId())
            + " = ?"
            + (lock ? " FOR UPDATE" : "");
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      if (ref.id() != null) {
        ps.setLong(1, ref.id());
      } else {
        dialect.bindEventId(ps, 1, ref.eventId());
      }
      List<OutboxRow> rows = read(ps, payload);
      return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
    }
  }

  /**
   * Makes DEAD rows PENDING again, due now by the database's clock, with no attempts and no claim.
   *
   * @return how many changed (those still DEAD)
   */
  int requeue(List<Long> ids) throws SQLException {
    int changed = 0;
    for (int from = 0; from < ids.size(); from += CHUNK) {
      List<Long> chunk = ids.subList(from, Math.min(ids.size(), from + CHUNK));
      try (PreparedStatement ps =
          connection.prepareStatement(
              "UPDATE "
                  + table
                  + " SET status = 'PENDING', attempts = 0, next_attempt_at = "
                  + dialect.now()
                  + ", "
                  + released()
                  + " WHERE "
                  + dialect.in(id, chunk.size())
                  + " AND status = 'DEAD'")) {
        dialect.bindIds(connection, ps, 1, chunk);
        changed += ps.executeUpdate();
      }
    }
    return changed;
  }

  /**
   * Marks DEAD rows SKIPPED, each with its new {@code last_error}.
   *
   * @param lastErrors row id to its new {@code last_error}
   * @return how many changed (those still DEAD)
   */
  int skip(Map<Long, String> lastErrors) throws SQLException {
    try (PreparedStatement ps =
        connection.prepareStatement(
            "UPDATE "
                + table
                + " SET status = 'SKIPPED', "
                + released()
                + ", last_error = ? WHERE "
                + id
                + " = ? AND status = 'DEAD'")) {
      for (Map.Entry<Long, String> e : lastErrors.entrySet()) {
        ps.setString(1, e.getValue());
        ps.setLong(2, e.getKey());
        ps.addBatch();
      }
      int changed = 0;
      for (int n : ps.executeBatch()) {
        changed += n == PreparedStatement.SUCCESS_NO_INFO ? 1 : n;
      }
      return changed;
    }
  }

  /** Rows per open status (the index {@code (status, id)} answers it; PUBLISHED is not counted). */
  Map<String, Long> openCounts() throws SQLException {
    Map<String, Long> counts = new LinkedHashMap<>();
    OPEN_STATUSES.forEach(s -> counts.put(s, 0L));
    try (PreparedStatement ps =
            connection.prepareStatement(
                "SELECT status, COUNT(*) FROM "
                    + table
                    + " WHERE status IN ('PENDING', 'PROCESSING', 'DEAD', 'SKIPPED') GROUP BY"
                    + " status");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        counts.put(rs.getString(1).trim(), rs.getLong(2));
      }
    }
    return counts;
  }

  /** The oldest row of a status by id, its creation time and the database's now. */
  record Oldest(long id, Instant createdAt, Instant now) {}

  /** The lowest-id row of {@code status}, if any. */
  Optional<Oldest> oldest(String status) throws SQLException {
    try (PreparedStatement ps =
            connection.prepareStatement(
                "SELECT "
                    + id
                    + ", created_at, "
                    + dialect.now()
                    + " FROM "
                    + table
                    + " WHERE status = '"
                    + status
                    + "' ORDER BY "
                    + id
                    + " LIMIT 1");
        ResultSet rs = ps.executeQuery()) {
      return rs.next()
          ? Optional.of(
              new Oldest(
                  rs.getLong(1), rs.getTimestamp(2).toInstant(), rs.getTimestamp(3).toInstant()))
          : Optional.empty();
    }
  }

  /** How many of the newest PUBLISHED rows {@link #lastPublished} looks at. */
  static final int LAST_PUBLISHED_WINDOW = 1000;

  /**
   * The latest {@code published_at} among the newest {@value #LAST_PUBLISHED_WINDOW} PUBLISHED rows
   * by id, read through {@code (status, id)}: there is no index on {@code published_at} (every
   * finish would have to update it), and in steady state the newest rows are the ones published
   * last.
   */
  Optional<Instant> lastPublished() throws SQLException {
    try (PreparedStatement ps =
            connection.prepareStatement(
                "SELECT MAX(r.published_at) FROM (SELECT published_at FROM "
                    + table
                    + " WHERE status = 'PUBLISHED' ORDER BY "
                    + id
                    + " DESC LIMIT "
                    + LAST_PUBLISHED_WINDOW
                    + ") r");
        ResultSet rs = ps.executeQuery()) {
      Timestamp t = rs.next() ? rs.getTimestamp(1) : null;
      return Optional.ofNullable(t).map(Timestamp::toInstant);
    }
  }

  /** The database's clock. */
  Instant now() throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("SELECT " + dialect.now());
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getTimestamp(1).toInstant();
    }
  }

  /** The assignments that end a row's lease, as the relay writes them. */
  private String released() {
    return "claim_token = " + dialect.noClaimToken() + ", processing_until = " + dialect.now();
  }

  private static List<OutboxRow> read(PreparedStatement ps, boolean payload) throws SQLException {
    List<OutboxRow> rows = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        rows.add(
            new OutboxRow(
                rs.getLong(1),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getString(5),
                rs.getString(6).trim(),
                rs.getInt(7),
                instant(rs.getTimestamp(8)),
                instant(rs.getTimestamp(9)),
                instant(rs.getTimestamp(10)),
                instant(rs.getTimestamp(11)),
                rs.getString(12),
                payload ? rs.getString(13) : null));
      }
    }
    return rows;
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }
}
