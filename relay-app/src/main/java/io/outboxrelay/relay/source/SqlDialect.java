package io.outboxrelay.relay.source;

import io.outboxrelay.relay.config.SourceFlavor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

/**
 * The SQL that differs between MariaDB/MySQL and PostgreSQL, side by side: each database is one
 * constant with its fragments, and the few bindings that differ are told apart in one place.
 * Statements use {@code ?} placeholders bound through the methods here; polling mode builds its
 * statements from these fragments in one place ({@code source.polling.OutboxStatements}). Immutable
 * and thread-safe. Shared by the sources and the operator commands ({@code relay.admin}), which
 * work on the same table with the same conventions.
 *
 * @param now the database's current time, to the microsecond
 * @param nowPlus {@code now()} plus a duration bound as the next parameter (see {@link
 *     #bindDuration})
 * @param nowMinus {@code now()} minus a duration bound as the next parameter
 * @param textCast what follows a column in a select list to read it as text ({@code ::text} on
 *     PostgreSQL, whose {@code uuid} and {@code jsonb} columns are not text); see {@link #text}
 * @param noClaimToken the value {@code claim_token} holds when no claim owns the row. On
 *     MariaDB/MySQL the empty string: the column is a fixed-width {@code CHAR(36) ASCII NOT NULL},
 *     so taking or releasing a claim never changes the record's size, and a claim updates the row
 *     in place (a NULL takes no room in an InnoDB record: filling or emptying one makes InnoDB
 *     rewrite the record, which measured several times slower per row). On PostgreSQL, whose
 *     updates always write a new row version, {@code NULL}.
 * @param statusIdIndexHint what follows {@code FROM <table> [alias]} in the queries that walk the
 *     rows of one status in id order (the claim of pending rows and the window ends): on
 *     MariaDB/MySQL, an index hint for {@code ix_outbox_events_status_id}. Measured: without it the
 *     optimizer often range-scanned the primary key over every row of a claim's window, leased and
 *     published ones included, and locked them as it went.
 * @param aggregateIndexHint what follows {@code FROM <table> p} in the head checks: on
 *     MariaDB/MySQL, an index hint for {@code ix_outbox_events_aggregate}. Measured: without it the
 *     optimizer answers "is there a lower PROCESSING row of this aggregate?" from {@code (status,
 *     id)}, reading every leased row for every candidate, which took a third of the database's CPU
 *     in a drain.
 * @param forUpdateSkipLocked the locking clause of a claim query over table alias {@code e}
 * @param typedBinds whether values are bound as the database's own types (PostgreSQL: a {@code
 *     uuid}, a {@code bigint[]}, an interval in seconds) rather than as text, numbers and
 *     microseconds
 */
public record SqlDialect(
    String now,
    String nowPlus,
    String nowMinus,
    String textCast,
    String noClaimToken,
    String statusIdIndexHint,
    String aggregateIndexHint,
    String forUpdateSkipLocked,
    boolean typedBinds) {

  /** MariaDB 10.6+ and MySQL 8.0+. */
  public static final SqlDialect MYSQL =
      new SqlDialect(
          "NOW(6)",
          "(NOW(6) + INTERVAL ? MICROSECOND)",
          "(NOW(6) - INTERVAL ? MICROSECOND)",
          "",
          "''",
          " FORCE INDEX (ix_outbox_events_status_id)",
          " FORCE INDEX (ix_outbox_events_aggregate)",
          "FOR UPDATE SKIP LOCKED",
          false);

  /** PostgreSQL 12+: {@code uuid}, {@code jsonb}, {@code timestamptz}. */
  public static final SqlDialect POSTGRESQL =
      new SqlDialect(
          "clock_timestamp()",
          "(clock_timestamp() + make_interval(secs => ?))",
          "(clock_timestamp() - make_interval(secs => ?))",
          "::text",
          "NULL",
          "", // the planner picks (status, id) by itself
          "",
          "FOR UPDATE OF e SKIP LOCKED",
          true);

  /**
   * The dialect of a kind of database.
   *
   * @param flavor the database
   * @return its dialect
   */
  public static SqlDialect of(SourceFlavor flavor) {
    return flavor == SourceFlavor.POSTGRESQL ? POSTGRESQL : MYSQL;
  }

  /** Binds a duration for {@link #nowPlus()} or {@link #nowMinus()}. */
  public void bindDuration(PreparedStatement ps, int index, Duration d) throws SQLException {
    if (typedBinds) {
      ps.setDouble(index, d.toNanos() / 1e9); // seconds
    } else {
      ps.setLong(index, d.toNanos() / 1000); // microseconds
    }
  }

  /**
   * A column read as text in a select list: {@code event_id} on MariaDB/MySQL, {@code
   * event_id::text} on PostgreSQL.
   *
   * @param column the column, possibly qualified ({@code e.event_id})
   * @return the expression
   */
  public String text(String column) {
    return column + textCast;
  }

  /** A predicate {@code id in <list bound as one or more parameters>}. */
  public String idIn(int count) {
    return in("id", count);
  }

  /**
   * A predicate {@code <column> in <list bound as one or more parameters>}, bound by {@link
   * #bindIds}.
   *
   * @param column the integer column, e.g. the sequence column
   * @param count how many ids
   * @return the predicate
   */
  public String in(String column, int count) {
    return typedBinds
        ? column + " = ANY(?)"
        : column + " IN (" + String.join(", ", Collections.nCopies(count, "?")) + ")";
  }

  /** Binds the ids for {@link #idIn}; returns the next parameter index. */
  public int bindIds(Connection c, PreparedStatement ps, int index, List<Long> ids)
      throws SQLException {
    if (typedBinds) {
      ps.setArray(index, c.createArrayOf("bigint", ids.toArray()));
      return index + 1;
    }
    for (Long id : ids) {
      ps.setLong(index++, id);
    }
    return index;
  }

  /**
   * Runs {@code statement} followed by {@link #idIn}, with the ids bound as its only parameters.
   *
   * @param c the connection (its transaction is left to the caller)
   * @param statement the statement up to the id predicate, e.g. {@code DELETE FROM t WHERE }
   * @param ids the ids
   * @return the update count
   * @throws SQLException when the statement fails
   */
  public int executeForIds(Connection c, String statement, List<Long> ids) throws SQLException {
    return executeForIds(c, statement, "id", ids);
  }

  /**
   * Runs {@code statement} followed by {@link #in}, with the ids bound as its only parameters.
   *
   * @param c the connection (its transaction is left to the caller)
   * @param statement the statement up to the predicate, e.g. {@code DELETE FROM t WHERE }
   * @param column the integer column the ids are of
   * @param ids the ids
   * @return the update count
   * @throws SQLException when the statement fails
   */
  public int executeForIds(Connection c, String statement, String column, List<Long> ids)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(statement + in(column, ids.size()))) {
      bindIds(c, ps, 1, ids);
      return ps.executeUpdate();
    }
  }

  /** Binds a claim token. */
  public void bindToken(PreparedStatement ps, int index, String token) throws SQLException {
    bindUuid(ps, index, token);
  }

  /**
   * Binds an event id given as text for a comparison {@code event_id = ?}, so the unique index on
   * {@code event_id} is used: on PostgreSQL as a {@code uuid}.
   *
   * @throws IllegalArgumentException when the text cannot be an event id of this database (on
   *     PostgreSQL: not a UUID)
   */
  public void bindEventId(PreparedStatement ps, int index, String eventId) throws SQLException {
    bindUuid(ps, index, eventId);
  }

  /** A UUID given as text: a {@code uuid} on PostgreSQL, text on MariaDB/MySQL. */
  private void bindUuid(PreparedStatement ps, int index, String text) throws SQLException {
    if (typedBinds) {
      ps.setObject(index, UUID.fromString(text));
    } else {
      ps.setString(index, text);
    }
  }
}
