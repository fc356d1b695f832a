package io.outboxrelay.relay.source.cdc.leader;

import io.outboxrelay.relay.config.SourceConfig;
import io.outboxrelay.relay.failure.SqlErrors;
import io.outboxrelay.relay.source.SqlDialect;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;

/**
 * The leadership rows in the source database. Every time is computed by the database ({@link
 * SqlDialect#now()}), never by the JVM: relays on hosts with different clocks agree on who holds
 * leadership. Each statement commits on its own (autocommit).
 *
 * <p>Not thread-safe: one connection, used by the election loop only. A failed statement closes the
 * connection; the next call opens a new one.
 */
public final class LeadershipStore implements AutoCloseable {

  /** DDL of the leases table on MariaDB/MySQL; {@code %s} is its name. */
  public static final String DDL = ddl(SqlDialect.MARIADB);

  /**
   * DDL of the leases table on a database.
   *
   * @param dialect the database
   * @return the DDL; {@code %s} is the table's name
   */
  public static String ddl(SqlDialect dialect) {
    return "CREATE TABLE IF NOT EXISTS %s (resource VARCHAR(255) NOT NULL, holder VARCHAR(255) NOT"
        + " NULL, relay_name VARCHAR(255) NOT NULL, epoch BIGINT NOT NULL, expires_at "
        + dialect.relayTimeColumn()
        + ", renewed_at "
        + dialect.relayTimeColumn()
        + ", PRIMARY KEY (resource))";
  }

  private final SourceConfig source;
  private final String table;
  private final String resource;
  private final Duration socketTimeout;
  private final SqlDialect dialect;
  private Connection connection;
  private boolean tableChecked;

  /**
   * Creates a store; connects on first use.
   *
   * @param source the source database
   * @param table the leases table
   * @param socketTimeout longest a statement may wait for the database
   */
  public LeadershipStore(SourceConfig source, String table, Duration socketTimeout) {
    this.source = source;
    this.table = table;
    this.resource = resourceOf(source);
    this.socketTimeout = socketTimeout;
    this.dialect = SqlDialect.of(source.flavor());
  }

  /**
   * The leadership key of the outbox table: {@code database.table}.
   *
   * @param source the source database
   * @return the key
   */
  public static String resourceOf(SourceConfig source) {
    return source.database() + "." + source.table();
  }

  /** The leadership key this store works on. */
  String resource() {
    return resource;
  }

  /**
   * Takes the leadership when it is free, expired and of this {@code relayName}, or already held by
   * {@code holder} (a new term, with a new epoch), and returns the leadership as it stands
   * afterwards.
   *
   * @param holder this process
   * @param relayName this relay's name
   * @param termLength how long the leadership lasts
   * @return the leadership after the attempt: held by {@code holder} when taken
   * @throws SQLException when the database cannot be reached
   */
  public LeadershipRow tryAcquire(String holder, String relayName, Duration termLength)
      throws SQLException {
    try {
      Connection c = connection();
      int taken;
      String now = dialect.now();
      try (PreparedStatement ps =
          c.prepareStatement(
              "UPDATE "
                  + table
                  + " SET holder = ?, relay_name = ?, epoch = epoch + 1, expires_at = "
                  + dialect.nowPlus()
                  + ", renewed_at = "
                  + now
                  + " WHERE resource = ? AND ((expires_at <= "
                  + now
                  + " AND relay_name = ?) OR holder = ?)")) {
        // Only a relay of the leadership's relay.name takes it over: one of another name would
        // continue from its own position, skipping what was committed since the leader's.
        ps.setString(1, holder);
        ps.setString(2, relayName);
        dialect.bindDuration(ps, 3, termLength);
        ps.setString(4, resource);
        ps.setString(5, relayName);
        ps.setString(6, holder);
        taken = ps.executeUpdate();
      }
      if (taken == 0) {
        try (PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO "
                    + table
                    + " (resource, holder, relay_name, epoch, expires_at, renewed_at) VALUES (?,"
                    + " ?, ?, 1, "
                    + dialect.nowPlus()
                    + ", "
                    + now
                    + ")")) {
          ps.setString(1, resource);
          ps.setString(2, holder);
          ps.setString(3, relayName);
          dialect.bindDuration(ps, 4, termLength);
          ps.executeUpdate();
        } catch (SQLException held) {
          if (!SqlErrors.isDuplicateKey(held)) {
            throw held;
          }
          // another relay holds it (or took it first): read below who
        }
      }
      return read()
          .orElseThrow(() -> new SQLException("the lease row of " + resource + " vanished"));
    } catch (SQLException e) {
      closeQuietly();
      throw e;
    }
  }

  /**
   * Extends the leadership held by {@code holder} in {@code epoch}.
   *
   * @param holder this process
   * @param epoch the epoch it was taken with
   * @param termLength how long the leadership lasts from now (database clock)
   * @return false when the leadership is no longer held in this epoch: another relay took it
   * @throws SQLException when the database cannot be reached
   */
  public boolean renew(String holder, long epoch, Duration termLength) throws SQLException {
    try (PreparedStatement ps =
        connection()
            .prepareStatement(
                "UPDATE "
                    + table
                    + " SET expires_at = "
                    + dialect.nowPlus()
                    + ", renewed_at = "
                    + dialect.now()
                    + " WHERE resource = ? AND holder = ? AND epoch = ?")) {
      dialect.bindDuration(ps, 1, termLength);
      ps.setString(2, resource);
      ps.setString(3, holder);
      ps.setLong(4, epoch);
      return ps.executeUpdate() == 1;
    } catch (SQLException e) {
      closeQuietly();
      throw e;
    }
  }

  /**
   * Lets the leadership expire now, so that a standby takes over at its next look instead of when
   * it runs out (graceful stop). Does nothing when the leadership moved on.
   *
   * @param holder this process
   * @param epoch the epoch it was taken with
   * @throws SQLException when the database cannot be reached
   */
  public void release(String holder, long epoch) throws SQLException {
    try (PreparedStatement ps =
        connection()
            .prepareStatement(
                "UPDATE "
                    + table
                    + " SET expires_at = "
                    + dialect.now()
                    + " WHERE resource = ? AND holder = ? AND epoch = ?")) {
      ps.setString(1, resource);
      ps.setString(2, holder);
      ps.setLong(3, epoch);
      ps.executeUpdate();
    } catch (SQLException e) {
      closeQuietly();
      throw e;
    }
  }

  /**
   * Reads the leadership row.
   *
   * @return the leadership, empty when no relay ever took it
   * @throws SQLException when the database cannot be reached
   */
  public Optional<LeadershipRow> read() throws SQLException {
    try (PreparedStatement ps =
        connection()
            .prepareStatement(
                "SELECT holder, relay_name, epoch, "
                    + dialect.microsUntil("expires_at")
                    + " FROM "
                    + table
                    + " WHERE resource = ?")) {
      ps.setString(1, resource);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new LeadershipRow(
                resource,
                rs.getString(1),
                rs.getString(2),
                rs.getLong(3),
                Duration.ofNanos(rs.getLong(4) * 1000)));
      }
    } catch (SQLException e) {
      closeQuietly();
      throw e;
    }
  }

  private Connection connection() throws SQLException {
    if (connection == null) {
      Connection c =
          DriverManager.getConnection(
              source.jdbcUrl() + dialect.socketTimeoutUrlParameter(socketTimeout),
              source.user(),
              source.password().reveal());
      c.setAutoCommit(true);
      connection = c;
    }
    if (!tableChecked) {
      try (Statement s = connection.createStatement()) {
        s.execute(String.format(ddl(dialect), table));
      } catch (SQLException e) {
        // Without CREATE the table must exist already (config/mysql/relay-storage.sql); a
        // missing one fails the next statement with the database's own message.
        if (!exists()) {
          throw e;
        }
      }
      tableChecked = true;
    }
    return connection;
  }

  private boolean exists() throws SQLException {
    try (ResultSet rs =
        connection.getMetaData().getTables(dialect.catalog(source), null, table, null)) {
      return rs.next();
    }
  }

  private void closeQuietly() {
    Connection c = connection;
    connection = null;
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // the connection is being dropped because it failed
      }
    }
  }

  @Override
  public void close() {
    closeQuietly();
  }
}
