package io.outboxrelay.relay.source;

import io.outboxrelay.relay.config.RelayMode;
import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.failure.SqlErrors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Optional;

/**
 * The record of an outbox table's hand-offs between CDC and polling ({@code outbox-relay handoff}),
 * kept in {@value #TABLE} in the source database: which mode the table was last handed to, when (by
 * the database clock), by whom and for which CDC {@code relay.name}, and whether the hand-off
 * finished. It is what tells a table that polling serves from one that CDC serves: relays refuse to
 * start in the mode the table was not handed to, and {@code handoff} refuses a direction that would
 * publish or mark rows a second time. A table without records was never handed over. Its statements
 * and DDL come from the source's {@link SqlDialect}. Stateless.
 */
public final class HandoffRecords {

  /** The table, in {@code source.database}, next to the relay's other tables. */
  public static final String TABLE = "outbox_relay_handoffs";

  /**
   * Its DDL, as in {@code config/mysql/relay-storage.sql} and {@code
   * config/postgresql/relay-storage.sql}.
   *
   * @param dialect the source's dialect
   * @param table the table as the statement names it
   * @return {@code CREATE TABLE IF NOT EXISTS ...}
   */
  public static String ddl(SqlDialect dialect, String table) {
    return "CREATE TABLE IF NOT EXISTS "
        + table
        + " (resource VARCHAR(255) NOT NULL, handed_at "
        + dialect.timeColumn(false)
        + ", to_mode VARCHAR(16) NOT NULL, relay_name VARCHAR(255) NOT NULL, operator"
        + " VARCHAR(255) NOT NULL, finished_at "
        + dialect.timeColumn(true)
        + ", summary VARCHAR(1000) NULL, PRIMARY KEY (resource, handed_at))";
  }

  /**
   * The record table as statements and messages name it.
   *
   * @param source where the outbox table is
   * @return e.g. {@code app.outbox_relay_handoffs}
   */
  public static String table(SourceConfig source) {
    return SqlDialect.of(source.flavor()).relayTable(source, TABLE);
  }

  /**
   * One hand-off.
   *
   * @param to the mode the table was handed to
   * @param relayName the CDC relay's {@code relay.name} it was handed from or to
   * @param operator who ran the command
   * @param handedAt when it started, as the database prints it (its session time zone)
   * @param finished whether it finished; a hand-off to polling that was interrupted has not
   * @param ageMicros how long ago it started, by the database clock
   */
  public record Handoff(
      RelayMode to,
      String relayName,
      String operator,
      String handedAt,
      boolean finished,
      long ageMicros) {

    /**
     * How long ago it started, in whole seconds.
     *
     * @return the age
     */
    public long secondsAgo() {
      return ageMicros / 1_000_000;
    }

    /**
     * One phrase for messages: {@code handed to polling at 2026-12-03 10:00:00.123456 (5 s ago) by
     * alice}.
     *
     * @return the phrase
     */
    public String describe() {
      return "handed to "
          + to.name().toLowerCase(Locale.ROOT)
          + " at "
          + handedAt
          + " ("
          + secondsAgo()
          + " s ago) by "
          + operator
          + (finished ? "" : ", a hand-off that did not finish");
    }
  }

  private HandoffRecords() {}

  /**
   * The lease key and hand-off key of an outbox table: {@code database.table}.
   *
   * @param source where the table is
   * @return the key
   */
  public static String resourceOf(SourceConfig source) {
    return source.database() + "." + source.table();
  }

  /**
   * The table's latest hand-off.
   *
   * @param c a connection to the source database (its transaction is left open, except where a
   *     missing record table ended it: {@link SqlDialect#afterFailedStatement})
   * @param source where the outbox table is
   * @return the latest hand-off, or empty when the table was never handed over (or the record table
   *     does not exist)
   * @throws SQLException when the record table cannot be read (other than missing), e.g. a missing
   *     grant
   */
  public static Optional<Handoff> latest(Connection c, SourceConfig source) throws SQLException {
    SqlDialect dialect = SqlDialect.of(source.flavor());
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT to_mode, relay_name, operator, handed_at, finished_at IS NOT NULL, "
                + dialect.microsSince("handed_at")
                + " FROM "
                + table(source)
                + " WHERE resource = ? ORDER BY handed_at DESC LIMIT 1")) {
      ps.setString(1, resourceOf(source));
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new Handoff(
                RelayMode.valueOf(rs.getString(1).toUpperCase(Locale.ROOT)),
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getBoolean(5),
                Math.max(0, rs.getLong(6))));
      }
    } catch (SQLException e) {
      if (SqlErrors.isMissingTable(e)) {
        dialect.afterFailedStatement(c);
        return Optional.empty();
      }
      throw e;
    }
  }

  /**
   * Creates the record table when it is missing.
   *
   * @param c a connection to the source database
   * @param source where the outbox table is
   * @throws SQLException when it cannot be created (e.g. no CREATE grant)
   */
  public static void ensureTable(Connection c, SourceConfig source) throws SQLException {
    SqlDialect dialect = SqlDialect.of(source.flavor());
    String table = table(source);
    try (Statement s = c.createStatement()) {
      try {
        // CREATE TABLE IF NOT EXISTS needs the CREATE grant even when the table is there.
        s.executeQuery("SELECT 1 FROM " + table + " LIMIT 0").close();
        return;
      } catch (SQLException e) {
        if (!SqlErrors.isMissingTable(e)) {
          throw e;
        }
        dialect.afterFailedStatement(c);
      }
      s.execute(ddl(dialect, table));
    }
  }

  /**
   * Records the start of a hand-off, in the caller's transaction.
   *
   * @param c a connection to the source database
   * @param source where the outbox table is
   * @param to the mode the table is handed to
   * @param relayName the CDC relay's name
   * @param operator who runs the command
   * @param finished whether it finishes with this transaction (a hand-off to CDC does)
   * @param summary what it did, one line, or {@code null}
   * @return the database's {@code handed_at}, which {@link #finish} takes
   * @throws SQLException when the row cannot be written
   */
  public static String begin(
      Connection c,
      SourceConfig source,
      RelayMode to,
      String relayName,
      String operator,
      boolean finished,
      String summary)
      throws SQLException {
    SqlDialect dialect = SqlDialect.of(source.flavor());
    String now;
    try (PreparedStatement ps = c.prepareStatement("SELECT " + dialect.now());
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      now = rs.getString(1);
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO "
                + table(source)
                + " (resource, handed_at, to_mode, relay_name, operator, finished_at, summary)"
                + " VALUES (?, "
                + dialect.timeParameter()
                + ", ?, ?, ?, "
                + (finished ? dialect.timeParameter() : "NULL")
                + ", ?)")) {
      int i = 1;
      ps.setString(i++, resourceOf(source));
      ps.setString(i++, now);
      ps.setString(i++, to.name().toLowerCase(Locale.ROOT));
      ps.setString(i++, relayName);
      ps.setString(i++, operator);
      if (finished) {
        ps.setString(i++, now);
      }
      ps.setString(i, truncate(summary));
      ps.executeUpdate();
    }
    return now;
  }

  /**
   * Records that a hand-off begun with {@link #begin} finished, in the caller's transaction.
   *
   * @param c a connection to the source database
   * @param source where the outbox table is
   * @param handedAt what {@link #begin} returned
   * @param summary what it did, one line
   * @throws SQLException when the row cannot be written
   */
  public static void finish(Connection c, SourceConfig source, String handedAt, String summary)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE "
                + table(source)
                + " SET finished_at = "
                + SqlDialect.of(source.flavor()).now()
                + ", summary = ? WHERE resource = ? AND handed_at = "
                + SqlDialect.of(source.flavor()).timeParameter())) {
      ps.setString(1, truncate(summary));
      ps.setString(2, resourceOf(source));
      ps.setString(3, handedAt);
      ps.executeUpdate();
    }
  }

  private static String truncate(String summary) {
    return summary == null || summary.length() <= 1000
        ? summary
        : summary.substring(0, 997) + "...";
  }
}
