package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.config.SourceConfig;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import org.postgresql.PGProperty;
import org.postgresql.replication.LogSequenceNumber;

/**
 * CDC on PostgreSQL: the relay's replication slot and publication, and the engine settings that
 * read them with Debezium's PostgreSQL connector. Stateless.
 *
 * <p>Both are named from {@code relay.name}: {@code outbox_relay_<name>}, lower case, with {@code
 * .} and {@code -} as {@code _} (and a hash of the name appended when that changed anything, or it
 * had to be shortened to PostgreSQL's 63 characters), so that every relay of one name uses one slot
 * and relays of other names never share it. The publication holds only the outbox table and
 * publishes only inserts ({@code publish = 'insert'}): updates and deletes of outbox rows never
 * leave the server. The relay creates it when its user may (see {@link PostgresPreflight});
 * otherwise the operator creates it with {@link #createPublicationSql}. The relay creates the slot
 * ({@code pgoutput}) at its first start ({@link PostgresFirstStart}), and uses one the operator
 * made; from PostgreSQL 17 on it makes it a failover slot ({@link FailoverSlot}).
 */
public final class PostgresReplication {

  private static final int MAX_NAME = 63;
  private static final Pattern PLAIN = Pattern.compile("[a-z0-9_]+");

  private PostgresReplication() {}

  /**
   * The replication slot of a relay.
   *
   * @param relayName {@code relay.name}
   * @return the slot's name
   */
  public static String slotName(String relayName) {
    String base =
        "outbox_relay_" + relayName.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    boolean changed = !PLAIN.matcher(relayName).matches();
    if (!changed && base.length() <= MAX_NAME) {
      return base;
    }
    CRC32 crc = new CRC32();
    crc.update(relayName.getBytes(StandardCharsets.UTF_8));
    String suffix = String.format("_%08x", crc.getValue());
    return base.substring(0, Math.min(base.length(), MAX_NAME - suffix.length())) + suffix;
  }

  /**
   * The publication of a relay: the slot's name.
   *
   * @param relayName {@code relay.name}
   * @return the publication's name
   */
  public static String publicationName(String relayName) {
    return slotName(relayName);
  }

  /**
   * A table filter of Debezium's ({@code schema.table} regular expressions) for text after any
   * schema: the relay finds the outbox table through the search path, as its statements do.
   *
   * @param rest the table name, and what follows it, taken literally
   * @return the expression
   */
  static String anySchema(String rest) {
    return "[^.]+\\." + Pattern.quote(rest);
  }

  /**
   * The statement that creates a relay's publication.
   *
   * @param relayName {@code relay.name}
   * @param qualifiedTable {@code schema.table}
   * @return the statement
   */
  static String createPublicationSql(String relayName, String qualifiedTable) {
    return "CREATE PUBLICATION "
        + publicationName(relayName)
        + " FOR TABLE "
        + qualifiedTable
        + " WITH (publish = 'insert')";
  }

  /**
   * The outbox table's schema, as the search path of the relay's user resolves the table.
   *
   * @param c a connection as the relay's user
   * @param source the source settings
   * @return the schema, or empty when the table is not found
   * @throws SQLException when the database fails
   */
  static Optional<String> schemaOf(Connection c, SourceConfig source) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT n.nspname FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace"
                + " WHERE t.oid = to_regclass(?)")) {
      ps.setString(1, source.table());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
      }
    }
  }

  /**
   * Creates the relay's publication.
   *
   * @param c a connection as the relay's user, auto-commit on
   * @param relayName {@code relay.name}
   * @param qualifiedTable {@code schema.table}
   * @throws SQLException when the database refuses
   */
  static void createPublication(Connection c, String relayName, String qualifiedTable)
      throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute(createPublicationSql(relayName, qualifiedTable));
    }
  }

  /**
   * Sets what the PostgreSQL connector needs and drops what only the binlog connectors read.
   *
   * @param p the engine properties built for the relay
   * @param config the relay configuration
   */
  static void configure(Properties p, RelayConfig config) {
    SourceConfig source = config.source();
    for (String binlogOnly :
        new String[] {
          "database.server.id",
          "database.include.list",
          "connect.keep.alive",
          "connect.keep.alive.interval.ms",
          "connect.timeout.ms",
          "snapshot.locking.mode",
          "include.schema.changes",
          "sourceinfo.struct.maker", // the relay's lean one reads binlog fields
          "schema.history.internal",
          "schema.history.internal.jdbc.connection.url",
          "schema.history.internal.jdbc.connection.user",
          "schema.history.internal.jdbc.connection.password",
          "schema.history.internal.jdbc.table.name",
          "schema.history.internal.jdbc.table.ddl",
          "schema.history.internal.store.only.captured.tables.ddl",
          "schema.history.internal.store.only.captured.databases.ddl"
        }) {
      p.remove(binlogOnly);
    }
    p.setProperty("database.dbname", source.database());
    p.setProperty("plugin.name", "pgoutput");
    p.setProperty("slot.name", slotName(config.name()));
    // slot.failover: set by FailoverSlot on PostgreSQL 17+ for a slot Debezium makes.
    // For the task's check of its slot before each start (SlotGuard).
    p.setProperty(SlotGuard.RELAY_NAME, config.name());
    p.setProperty(SlotGuard.OFFSETS_TABLE, config.cdc().offsetsTable());
    p.setProperty("publication.name", publicationName(config.name()));
    // The relay creates the publication (insert only, the outbox table only) or the operator does;
    // Debezium's would publish every operation and be altered to Debezium's table list.
    p.setProperty("publication.autocreate.mode", "disabled");
    p.setProperty("snapshot.locking.mode", "none");
    // Every heartbeat writes a logical decoding message (non-transactional, no table, any user may)
    // that the slot decodes: the position moves to it, and the slot with it, also while the
    // outbox table is quiet and other tables fill the WAL.
    p.setProperty("heartbeat.action.query", HEARTBEAT_QUERY);
    // Every read on Debezium's connections (the replication connection's commands, the catalog
    // reads, the heartbeat statement and the probe of the connection, both run by the streaming
    // thread) waits for the server at most this long, through pgjdbc's socketTimeout (Debezium
    // passes driver.* to the driver).
    p.setProperty("driver.socketTimeout", String.valueOf(SOCKET_TIMEOUT.toSeconds()));
  }

  /**
   * The longest any read on Debezium's connections waits for the server. On a network path that
   * went silent (packets dropped, no reset) the streaming thread would otherwise wait in its next
   * heartbeat statement until TCP gives up retransmitting (about 15 minutes with Linux's defaults),
   * and the engine cannot stop before it returns: the leadership renewals notice the loss within
   * {@code cdc.leader.lease} and end the term, but the term's engine, and with it the relay's
   * election, would wait for that thread. Longer than Debezium's own bound on its longest
   * statement, the creation of a slot, which waits for the transactions open then ({@code
   * create.slot.command.timeout}, 90 s), so that no statement that would succeed is cut short. A
   * {@code debezium.driver.socketTimeout} (seconds) replaces it.
   */
  static final java.time.Duration SOCKET_TIMEOUT = java.time.Duration.ofMinutes(2);

  /**
   * Opens a replication connection ({@code replication=database}, simple queries) as the relay's
   * user, for the replication commands the relay runs itself ({@code CREATE_REPLICATION_SLOT},
   * {@code ALTER_REPLICATION_SLOT}), bounded by {@link TermConnections#socketTimeout}. The caller
   * closes it.
   *
   * @param config the relay configuration
   * @return the connection
   * @throws SQLException when the database refuses it
   */
  static Connection replicationConnection(RelayConfig config) throws SQLException {
    SourceConfig source = config.source();
    Properties p = new Properties();
    p.setProperty("user", source.user());
    p.setProperty("password", source.password().reveal());
    PGProperty.REPLICATION.set(p, "database");
    PGProperty.ASSUME_MIN_SERVER_VERSION.set(p, "9.4");
    PGProperty.PREFER_QUERY_MODE.set(p, "simple");
    // The slot's creation waits for the transactions open then, at most this long.
    PGProperty.SOCKET_TIMEOUT.set(p, (int) TermConnections.socketTimeout(config).toSeconds());
    return java.sql.DriverManager.getConnection(source.jdbcUrl(), p);
  }

  /**
   * An LSN as PostgreSQL prints a {@code pg_lsn} ({@code 16/B374D848}), from the number Debezium's
   * offsets hold.
   *
   * @param lsn the LSN as a number
   * @return its text
   */
  public static String lsnText(long lsn) {
    return LogSequenceNumber.valueOf(lsn).asString();
  }

  /**
   * The number of an LSN as PostgreSQL prints it, the form Debezium's offsets hold.
   *
   * @param text a {@code pg_lsn} as text, e.g. from {@code pg_current_wal_lsn()::text}
   * @return its number
   */
  public static long lsnNumber(String text) {
    return LogSequenceNumber.valueOf(text).asLong();
  }

  /**
   * The database's clock in microseconds since the epoch, as Debezium's PostgreSQL offsets stamp a
   * position ({@code ts_usec}).
   *
   * @param c a connection to the source database
   * @return {@code clock_timestamp()} in microseconds
   * @throws SQLException when the database cannot be read
   */
  public static long databaseMicros(Connection c) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement("SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::bigint");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The statement each heartbeat runs: a logical decoding message of the relay's prefix. */
  static final String HEARTBEAT_QUERY =
      "SELECT pg_logical_emit_message(false, 'outbox_relay_heartbeat', '')";

  /**
   * What to do when the relay's slot was invalidated or dropped: events committed after its
   * confirmed position may be unpublished, and only the table still has them. The hand-off to
   * polling marks what was certainly published and leaves the rest {@code PENDING}; the hand-off
   * back makes the next start publish those from a new slot's snapshot.
   *
   * @param relayName {@code relay.name}
   * @param offsetsTable {@code cdc.offsets.table}
   * @return the advice, one sentence
   */
  static String recovery(String relayName, String offsetsTable) {
    return "events committed after the slot's last confirmed position may not have been"
        + " published, and only the outbox table still has them; stop every relay of relay.name '"
        + relayName
        + "', run 'outbox-relay handoff --to polling' (it marks PUBLISHED the rows created"
        + " before the relay's last position stored in "
        + offsetsTable
        + " less --open-transactions, and leaves the"
        + " others PENDING), then 'outbox-relay handoff --to cdc' and start the relay: its first"
        + " start publishes the PENDING rows from a new slot's snapshot (some a second time;"
        + " consumers deduplicate on the event id) and streams from there";
  }

  /**
   * Whether a stored {@code offset_val} is a position the engine streams from, not a first start's
   * or a hand-off's marker.
   *
   * @param stored the text, or null
   * @return true for a position
   */
  public static boolean isPosition(String stored) {
    return stored != null
        && !stored.contains(PostgresFirstStart.MARKER)
        && !stored.contains(HandoffMarker.FIELD);
  }

  /**
   * The relay's stored {@code offset_val} (its position, or a first start's marker), read through
   * the search path.
   *
   * @param c a connection as the relay's user
   * @param config the relay configuration
   * @return the text, or null when the offsets table is missing or holds no row of the relay's
   * @throws SQLException when the database fails
   */
  public static String storedOffset(Connection c, RelayConfig config) throws SQLException {
    String table = config.cdc().offsetsTable();
    try (PreparedStatement ps = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next() || !rs.getBoolean(1)) {
          return null;
        }
      }
    }
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT offset_key, offset_val FROM " + table)) {
      while (rs.next()) {
        if (io.outboxrelay.relay.source.cdc.leader.OffsetKey.belongsTo(
            rs.getString(1), config.name())) {
          return rs.getString(2);
        }
      }
    }
    return null;
  }

  /**
   * How {@code status} and the logs name the slot of a relay.
   *
   * @param relayName {@code relay.name}
   * @return e.g. {@code replication slot outbox_relay_orders}
   */
  static String describeSlot(String relayName) {
    return "replication slot " + slotName(relayName);
  }
}
