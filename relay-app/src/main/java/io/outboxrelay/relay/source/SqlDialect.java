package io.outboxrelay.relay.source;

import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.config.SourceFlavor;
import io.outboxrelay.router.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

/**
 * What differs between the databases the relay reads, one object per database: the SQL fragments of
 * the statements, the catalog queries of the startup checks, the column types the router can read
 * and the DDL to suggest, the session settings, and what each offers for CDC. The relay picks the
 * dialect once from {@code source.flavor} ({@link #of}) and every statement asks it; no other code
 * tells the databases apart. Which errors mean what stays in {@code relay.failure.SqlErrors}, the
 * one place that inspects the drivers' exceptions.
 *
 * <p>Statements use {@code ?} placeholders bound through the methods here; polling mode builds its
 * statements from these fragments in one place ({@code source.polling.OutboxStatements}). Shared by
 * the sources and the operator commands ({@code relay.admin}), which work on the same table with
 * the same conventions. Implementations are immutable and thread-safe.
 */
public sealed interface SqlDialect permits MySqlDialect, PostgresDialect {

  /** MariaDB 10.6+. */
  SqlDialect MARIADB = new MariaDbDialect();

  /** MySQL 8.0+: MariaDB's SQL, without its snapshot position, GTID format and session bounds. */
  SqlDialect MYSQL = new MySqlDialect();

  /** PostgreSQL 12+: {@code uuid}, {@code jsonb}, {@code timestamptz}; CDC through a slot. */
  SqlDialect POSTGRESQL = new PostgresDialect();

  /**
   * The dialect of the configured database: the one place that maps {@code source.flavor} to a
   * dialect.
   *
   * @param flavor the database
   * @return its dialect
   */
  static SqlDialect of(SourceFlavor flavor) {
    return switch (flavor) {
      case MARIADB -> MARIADB;
      case MYSQL -> MYSQL;
      case POSTGRESQL -> POSTGRESQL;
    };
  }

  /**
   * The dialect of the server a connection reached, from what its driver reports. The family
   * (MariaDB/MySQL or PostgreSQL) is the router's {@link Dialect#fromProductName}, the libraries'
   * one product detection; within the MySQL family MariaDB is told by its name or its version
   * ({@code 10.11.6-MariaDB}), as MariaDB Connector/J names MySQL and MariaDB servers alike {@code
   * MySQL}. A product of neither family is judged as MySQL: the relay reaches its databases through
   * the MariaDB and PostgreSQL drivers only, and this answer serves the version checks of a server
   * that source.flavor already named.
   *
   * @param productName {@code DatabaseMetaData.getDatabaseProductName()}
   * @param productVersion {@code DatabaseMetaData.getDatabaseProductVersion()}
   * @return the server's dialect; MySQL for a product of neither family
   */
  static SqlDialect ofProduct(String productName, String productVersion) {
    Dialect family;
    try {
      family = Dialect.fromProductName(productName);
    } catch (IllegalArgumentException unknown) {
      return MYSQL;
    }
    return switch (family) {
      case POSTGRESQL -> POSTGRESQL;
      case MYSQL ->
          productName.toLowerCase(Locale.ROOT).contains("mariadb")
                  || productVersion.toLowerCase(Locale.ROOT).contains("mariadb")
              ? MARIADB
              : MYSQL;
    };
  }

  /**
   * The database this dialect is for.
   *
   * @return its flavor
   */
  SourceFlavor flavor();

  // --- SQL fragments -------------------------------------------------------------------------

  /**
   * The database's current time, to the microsecond.
   *
   * @return e.g. {@code NOW(6)}
   */
  String now();

  /**
   * {@link #now()} plus a duration bound as the next parameter by {@link #bindDuration}.
   *
   * @return the expression
   */
  String nowPlus();

  /**
   * The whole microseconds from {@link #now()} to a time column (negative once it has passed).
   *
   * @param column the column
   * @return the select expression, a {@code BIGINT}
   */
  String microsUntil(String column);

  /**
   * The whole microseconds from a time column to {@link #now()} (positive once it has passed).
   *
   * @param column the column
   * @return the select expression, a {@code BIGINT}
   */
  default String microsSince(String column) {
    return "(-" + microsUntil(column) + ")";
  }

  /**
   * A point in time bound as whole seconds since the epoch ({@code setLong}), as a time value.
   *
   * @return {@code FROM_UNIXTIME(?)} on MariaDB/MySQL, {@code to_timestamp(?)} on PostgreSQL
   */
  String fromEpochSeconds();

  /**
   * A parameter holding a time as the database printed it ({@code ResultSet.getString} of a relay
   * time column or of {@link #now()}), to compare with or store in a relay time column.
   *
   * @return {@code ?} on MariaDB/MySQL, {@code CAST(? AS timestamptz)} on PostgreSQL
   */
  String timeParameter();

  /**
   * The type of a relay time column without a default: {@code TIMESTAMP(6)} on MariaDB/MySQL,
   * {@code timestamptz} on PostgreSQL.
   *
   * @param nullable whether it may be NULL
   * @return the type with {@code NULL} or {@code NOT NULL}
   */
  String timeColumn(boolean nullable);

  /**
   * Readies a connection for its next statement after one failed and the failure was handled (a
   * missing table read as "none"): PostgreSQL aborts the whole transaction on an error, so it is
   * rolled back there; MariaDB/MySQL fail only the statement, and the transaction stays open.
   *
   * @param c the connection whose statement failed
   * @throws SQLException when the rollback fails
   */
  default void afterFailedStatement(Connection c) throws SQLException {}

  /**
   * The statements that bound how long this session's statements wait for a lock.
   *
   * @param seconds the bound
   * @return the statements, run in order
   */
  java.util.List<String> lockWaitBounds(int seconds);

  /**
   * A query for the other sessions of the user bound as its only parameter: id, client, what the
   * session does, seconds it has done so.
   *
   * @return the query
   */
  String otherSessionsQuery();

  /**
   * The type of the relay's own time columns (leadership): {@code TIMESTAMP(6)} on MariaDB/MySQL,
   * {@code timestamptz} on PostgreSQL, so that {@link #now()} compares with them in any session
   * time zone.
   *
   * @return the column type with its default, e.g. {@code TIMESTAMP(6) NOT NULL DEFAULT
   *     CURRENT_TIMESTAMP(6)}
   */
  String relayTimeColumn();

  /**
   * The JDBC URL parameter that bounds how long a statement waits for the server's reply.
   *
   * @param timeout the bound
   * @return {@code &socketTimeout=...} in the driver's unit (milliseconds for MariaDB Connector/J,
   *     seconds for pgjdbc)
   */
  String socketTimeoutUrlParameter(Duration timeout);

  /**
   * {@link #now()} minus a duration bound as the next parameter by {@link #bindDuration}.
   *
   * @return the expression
   */
  String nowMinus();

  /**
   * The value {@code claim_token} holds when no claim owns the row. On MariaDB/MySQL the empty
   * string: the column is a fixed-width {@code CHAR(36) ASCII NOT NULL}, so taking or releasing a
   * claim never changes the record's size, and a claim updates the row in place (a NULL takes no
   * room in an InnoDB record: filling or emptying one makes InnoDB rewrite the record, which
   * measured several times slower per row). On PostgreSQL, whose updates always write a new row
   * version, {@code NULL}.
   *
   * @return the SQL literal
   */
  String noClaimToken();

  /**
   * What follows {@code FROM <table> [alias]} in the queries that walk the rows of one status in id
   * order (the claim of pending rows and the window ends): on MariaDB/MySQL, an index hint for
   * {@code ix_outbox_events_status_id}. Measured: without it the optimizer often range-scanned the
   * primary key over every row of a claim's window, leased and published ones included, and locked
   * them as it went.
   *
   * @return the hint with a leading space, or an empty string
   */
  String statusIdIndexHint();

  /**
   * What follows {@code FROM <table> p} in the head checks: on MariaDB/MySQL, an index hint for
   * {@code ix_outbox_events_aggregate}. Measured: without it the optimizer answers "is there a
   * lower PROCESSING row of this aggregate?" from {@code (status, id)}, reading every leased row
   * for every candidate, which took a third of the database's CPU in a drain.
   *
   * @return the hint with a leading space, or an empty string
   */
  String aggregateIndexHint();

  /**
   * Whether the claims name the outbox table's indexes in hints, so that a table without them fails
   * every claim (and the startup check must look for them).
   *
   * @return true on MariaDB/MySQL
   */
  default boolean hintsIndexes() {
    return !statusIdIndexHint().isEmpty();
  }

  /**
   * Whether polling claims read one window of unsettled rows in id order and choose the heads in
   * the relay, then lock exactly those rows, instead of one locking query that checks every
   * candidate's aggregate in SQL. On PostgreSQL: while anything holds the xmin horizon back, the
   * head checks read the row versions no VACUUM can remove, for every row of a window before its
   * {@code LIMIT}, and the locking query's cost grows with the backlog; a plain read in index order
   * stops after the window. MariaDB/MySQL purge old row versions whatever a reader's snapshot (the
   * undo log keeps them instead), so they keep the single query.
   *
   * @return true on PostgreSQL
   */
  default boolean claimsFromOrderedWindow() {
    return false;
  }

  /**
   * A query listing the transactions, other than the caller's, that may still commit a row into the
   * outbox table: those holding a granted {@code ROW EXCLUSIVE} lock on it (an {@code INSERT} takes
   * that lock before it takes an id from the table's sequence, and keeps it until its transaction
   * ends). A claim that starts at the lowest unsettled id it saw moves that start only once these
   * transactions have ended ({@link #writersRunningQuery}), since a row one of them commits may
   * have a lower id; the transactions of the rest of the server do not matter. Read after the
   * statement whose lowest id it is about. One parameter: the table's name. One row per holder: a
   * reference transaction id of 64 bits (within 2^31 of every running one), the holder, and its
   * 32-bit transaction ids as an array of text, or NULL for a holder that has none (yet).
   *
   * @return the query, or {@code null} where claims do not read an ordered window
   */
  default String outboxWritersQuery() {
    return null;
  }

  /**
   * A query counting the transactions of a list read by {@link #outboxWritersQuery} (their 64-bit
   * ids, bound as its only parameter, an array of {@code bigint}) that are still running.
   *
   * @return the query, or {@code null} where claims do not read an ordered window
   */
  default String writersRunningQuery() {
    return null;
  }

  /**
   * The statements run once on each polling worker's connection.
   *
   * @return on PostgreSQL, {@code SET enable_bitmapscan = off}: a bitmap scan reads every entry of
   *     its range before anything is returned, so the planner must not turn a claim's window, an
   *     index range scan that stops after the window, into one (or into a bitmap scan and a sort)
   *     when its statistics promise few rows; none elsewhere
   */
  default java.util.List<String> pollingSessionSettings() {
    return java.util.List.of();
  }

  /**
   * The locking clause of a claim query over table alias {@code e}.
   *
   * @return e.g. {@code FOR UPDATE SKIP LOCKED}
   */
  String forUpdateSkipLocked();

  /**
   * A column read as text in a select list: {@code event_id} on MariaDB/MySQL, {@code
   * event_id::text} on PostgreSQL, whose {@code uuid} and {@code jsonb} columns are not text.
   *
   * @param column the column, possibly qualified ({@code e.event_id})
   * @return the expression
   */
  String text(String column);

  /**
   * A {@code DATETIME} ({@code timestamp}) column as text {@code yyyy-MM-dd HH:mm:ss.SSSSSS}.
   *
   * @param column the column, qualified
   * @return the select expression
   */
  String localTimeText(String column);

  /**
   * A {@code TIMESTAMP} ({@code timestamptz}) column as a point in time, whatever the session's
   * time zone, as text that {@link #zonedTime} reads back.
   *
   * @param column the column, qualified
   * @return the select expression
   */
  String zonedTimeText(String column);

  /**
   * Reads what {@link #zonedTimeText} selected.
   *
   * @param text the selected text, not {@code null}
   * @return the point in time
   */
  Instant zonedTime(String text);

  /**
   * The fractional digits of a time column that declares none.
   *
   * @return 0 on MariaDB/MySQL, 6 on PostgreSQL
   */
  int defaultTimePrecision();

  /**
   * The seconds from a time column to {@link #now()}, with their fraction.
   *
   * @param column the column
   * @return the select expression
   */
  String secondsSince(String column);

  /**
   * A predicate {@code <column> in <list bound as one or more parameters>}, bound by {@link
   * #bindIds}.
   *
   * @param column the integer column, e.g. the sequence column
   * @param count how many ids
   * @return the predicate
   */
  String in(String column, int count);

  /**
   * Binds the ids for {@link #in}.
   *
   * @return the next parameter index
   */
  int bindIds(Connection c, PreparedStatement ps, int index, java.util.List<Long> ids)
      throws SQLException;

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
  default int executeForIds(Connection c, String statement, String column, java.util.List<Long> ids)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(statement + in(column, ids.size()))) {
      bindIds(c, ps, 1, ids);
      return ps.executeUpdate();
    }
  }

  /**
   * Runs {@code statement} followed by {@code id} {@link #in}, with the ids bound as its only
   * parameters.
   *
   * @param c the connection (its transaction is left to the caller)
   * @param statement the statement up to the id predicate, e.g. {@code DELETE FROM t WHERE }
   * @param ids the ids
   * @return the update count
   * @throws SQLException when the statement fails
   */
  default int executeForIds(Connection c, String statement, java.util.List<Long> ids)
      throws SQLException {
    return executeForIds(c, statement, "id", ids);
  }

  /** Binds a duration for {@link #nowPlus()} or {@link #nowMinus()}. */
  void bindDuration(PreparedStatement ps, int index, Duration d) throws SQLException;

  /** Binds a claim token. */
  void bindToken(PreparedStatement ps, int index, String token) throws SQLException;

  /**
   * Binds an event id given as text for a comparison {@code event_id = ?}, so the unique index on
   * {@code event_id} is used: on PostgreSQL as a {@code uuid}.
   *
   * @throws IllegalArgumentException when the text cannot be an event id of this database (on
   *     PostgreSQL: not a UUID)
   */
  void bindEventId(PreparedStatement ps, int index, String eventId) throws SQLException;

  // --- catalog and DDL -----------------------------------------------------------------------

  /**
   * Where the shipped SQL for this database is.
   *
   * @return {@code config/mysql} or {@code config/postgresql}
   */
  String configDirectory();

  /**
   * The shipped DDL of the outbox table.
   *
   * @return e.g. {@code config/mysql/outbox-schema.sql}
   */
  default String outboxSchemaFile() {
    return configDirectory() + "/outbox-schema.sql";
  }

  /**
   * A shipped migration of the outbox table; they carry the same number on every database.
   *
   * @param file e.g. {@code 001-add-last-error.sql}
   * @return e.g. {@code config/mysql/migrations/001-add-last-error.sql}
   */
  default String migration(String file) {
    return configDirectory() + "/migrations/" + file;
  }

  /**
   * The outbox table as the relay's statements name it: qualified by its database on MariaDB/MySQL,
   * by the search path on PostgreSQL.
   *
   * @param source the source settings
   * @return e.g. {@code app.outbox_events}
   */
  String qualifiedTable(SourceConfig source);

  /**
   * One of the relay's own tables (offsets, leases, hand-off records) as the relay's statements and
   * messages name it: qualified by the source database on MariaDB/MySQL, found through the search
   * path on PostgreSQL, as the outbox table is.
   *
   * @param source the source settings
   * @param table the table's name, e.g. {@code outbox_relay_handoffs}
   * @return e.g. {@code app.outbox_relay_handoffs}
   */
  String relayTable(SourceConfig source, String table);

  /**
   * The catalog to give {@code DatabaseMetaData} for the outbox table.
   *
   * @param source the source settings
   * @return the database on MariaDB/MySQL, {@code null} on PostgreSQL
   */
  String catalog(SourceConfig source);

  /**
   * A query for the outbox table's columns: lower-case name, base type, full declared type, in
   * table order. Its leading parameters name the table ({@link #bindTable}).
   *
   * @return the query
   */
  String columnsQuery();

  /**
   * A query counting the unique indexes (the primary key among them) of the outbox table whose only
   * key column is the one named by the parameter after the table's ({@link #bindTable}); partial
   * and prefix indexes do not count.
   *
   * @return the query
   */
  String singleColumnUniqueIndexesQuery();

  /**
   * Binds the outbox table for {@link #columnsQuery()} and {@link
   * #singleColumnUniqueIndexesQuery()}.
   *
   * @return the next parameter index
   */
  int bindTable(PreparedStatement ps, int index, SourceConfig source) throws SQLException;

  /**
   * The column types the router reads on this database, and the DDL to suggest.
   *
   * @return the types
   */
  ColumnTypes columnTypes();

  /**
   * Whether polling's bookkeeping columns ({@code status}, {@code claim_token}, {@code
   * processing_until}) should be fixed-width and NOT NULL: InnoDB updates a row in place only then.
   * Migration 002 makes them so.
   *
   * @return true on MariaDB/MySQL
   */
  boolean wantsFixedWidthBookkeeping();

  // --- sessions and versions -----------------------------------------------------------------

  /**
   * Whether a server of this database in the given version has {@code SELECT ... FOR UPDATE SKIP
   * LOCKED}.
   *
   * @param major the server's major version
   * @param minor the server's minor version
   * @return true when polling can claim
   */
  boolean supportsSkipLocked(int major, int minor);

  /**
   * The statement that ends a session idle inside a transaction, rows locked or not, after {@code
   * seconds} (see {@link IdleTransactionBound}).
   *
   * @param seconds the bound
   * @return the statement, or {@code null} where there is no such setting (MySQL)
   */
  String idleTransactionTimeout(long seconds);

  /**
   * The same bound for sessions that write, as a JDBC URL parameter for connections a library opens
   * from a URL (the CDC position store).
   *
   * @param seconds the bound
   * @return {@code &...} to append to a URL that has parameters, or an empty string
   */
  String idleWriteTransactionUrlParameter(long seconds);

  // --- CDC -----------------------------------------------------------------------------------

  /**
   * Whether CDC mode reads this database's binlog (hand-offs, the binlog checks, position import
   * and status of a binlog position); PostgreSQL's CDC reads a replication slot instead.
   *
   * @return false on PostgreSQL
   */
  default boolean hasBinlog() {
    return flavor().readsBinlog();
  }

  /**
   * The name Debezium knows the connector by, also the JMX domain suffix of its metrics.
   *
   * @return {@code mariadb}, {@code mysql} or {@code postgres}
   */
  String connectorType();

  /**
   * Whether a consistent snapshot can report the binlog position it was taken at ({@code
   * binlog_snapshot_file}/{@code binlog_snapshot_position}), with the GTIDs completed there: what a
   * first start, a hand-off, CDC retention and a position reset need to name one exact point.
   *
   * @return true on MariaDB
   * @see SourceFlavor#snapshotsAtBinlogPosition()
   */
  default boolean snapshotsAtBinlogPosition() {
    return flavor().snapshotsAtBinlogPosition();
  }

  /**
   * A query for the GTIDs the binlog holds up to its current position, read before and after {@code
   * SHOW MASTER STATUS} to tell that both describe one point.
   *
   * @return MariaDB's {@code SELECT @@GLOBAL.gtid_binlog_pos}; {@code null} where {@code SHOW
   *     MASTER STATUS} reports them itself (MySQL) or there is no binlog
   */
  String gtidBinlogPositionQuery();

  /**
   * Whether {@code gtids} is a GTID list of this database, as a connector's offset stores it.
   *
   * @param gtids the list, trimmed
   * @return true when it has this database's format (MySQL: not checked)
   */
  boolean isGtidList(String gtids);

  /**
   * The global privilege that lets a user read the binlog's status.
   *
   * @return {@code BINLOG MONITOR} on MariaDB, {@code REPLICATION CLIENT} on MySQL
   */
  String binlogMonitorGrant();
}
