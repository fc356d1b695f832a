package io.outboxrelay.relay.source.polling;

import io.outboxrelay.relay.config.SourceFlavor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * The SQL that differs between MariaDB/MySQL and PostgreSQL. Statements use {@code ?} placeholders
 * bound through the methods here. Stateless and thread-safe. Public for the operator commands
 * ({@code relay.admin}), which work on the same table with the same conventions.
 */
public interface SqlDialect {

  /**
   * The dialect of a kind of database.
   *
   * @param flavor the database
   * @return its dialect
   */
  static SqlDialect of(SourceFlavor flavor) {
    return flavor == SourceFlavor.POSTGRESQL ? new PostgresDialect() : new MySqlDialect();
  }

  /** The database's current time, to the microsecond. */
  String now();

  /** {@code now()} plus a duration bound as the next parameter (see {@link #bindDuration}). */
  String nowPlus();

  /** {@code now()} minus a duration bound as the next parameter. */
  String nowMinus();

  /** Binds a duration for {@link #nowPlus()} or {@link #nowMinus()}. */
  void bindDuration(PreparedStatement ps, int index, Duration d) throws SQLException;

  /** The payload column as text. */
  String payloadText();

  /** The event id column as text. */
  String eventIdText();

  /** A predicate {@code id in <list bound as one or more parameters>}. */
  String idIn(int count);

  /** Binds the ids for {@link #idIn}; returns the next parameter index. */
  int bindIds(Connection c, PreparedStatement ps, int index, List<Long> ids) throws SQLException;

  /** Binds a claim token. */
  void bindToken(PreparedStatement ps, int index, String token) throws SQLException;

  /**
   * The value {@code claim_token} holds when no claim owns the row. On MariaDB/MySQL the empty
   * string: the column is a fixed-width {@code CHAR(36) ASCII NOT NULL}, so taking or releasing a
   * claim never changes the record's size, and a claim updates the row in place (a NULL takes no
   * room in an InnoDB record: filling or emptying one makes InnoDB rewrite the record, which
   * measured several times slower per row). On PostgreSQL, whose updates always write a new row
   * version, {@code NULL}.
   */
  String noClaimToken();

  /**
   * What follows {@code FROM <table> [alias]} in the queries that walk the rows of one status in id
   * order (the claim of pending rows and the window ends): on MariaDB/MySQL, an index hint for
   * {@code ix_outbox_events_status_id}. Measured: without it the optimizer often range-scanned the
   * primary key over every row of a claim's window, leased and published ones included, and locked
   * them as it went.
   */
  String statusIdIndexHint();

  /**
   * What follows {@code FROM <table> p} in the head checks: on MariaDB/MySQL, an index hint for
   * {@code ix_outbox_events_aggregate}. Measured: without it the optimizer answers "is there a
   * lower PROCESSING row of this aggregate?" from {@code (status, id)}, reading every leased row
   * for every candidate, which took a third of the database's CPU in a drain.
   */
  String aggregateIndexHint();

  /** The locking clause of a claim query over table alias {@code e}. */
  String forUpdateSkipLocked();

  /**
   * Binds an event id given as text for a comparison {@code event_id = ?}, so the unique index on
   * {@code event_id} is used: on PostgreSQL as a {@code uuid}.
   *
   * @throws IllegalArgumentException when the text cannot be an event id of this database (on
   *     PostgreSQL: not a UUID)
   */
  void bindEventId(PreparedStatement ps, int index, String eventId) throws SQLException;
}
