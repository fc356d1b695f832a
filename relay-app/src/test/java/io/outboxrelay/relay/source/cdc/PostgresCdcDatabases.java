package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.stack.PostgresServer;

/**
 * Outbox databases for CDC on PostgreSQL: one private server with logical decoding per test JVM
 * (started on first use, closed by a shutdown hook), each test on its own database, whose relay
 * user gets what CDC needs.
 */
final class PostgresCdcDatabases {

  private static PostgresServer shared;

  private PostgresCdcDatabases() {}

  /**
   * The relay's row in the offsets table ({@code outbox_relay_offsets}), or "" before there is one
   * or the table: for a test that acts while a first start runs (its marker is {@link
   * PostgresFirstStart#MARKER}).
   *
   * @param c a connection to the relay's database, not the relay's
   * @return the stored text
   */
  static String storedOffset(java.sql.Connection c) {
    try (java.sql.Statement st = c.createStatement();
        java.sql.ResultSet rs = st.executeQuery("SELECT offset_val FROM outbox_relay_offsets")) {
      return rs.next() ? rs.getString(1) : "";
    } catch (java.sql.SQLException e) {
      return "";
    }
  }

  /** The JVM's private server with {@code wal_level=logical}. Do not stop it. */
  static synchronized PostgresServer server() {
    if (shared == null) {
      PostgresServer s = PostgresServer.builder().start();
      Runtime.getRuntime().addShutdownHook(new Thread(s::close, "postgres-cdc-shutdown"));
      shared = s;
    }
    return shared;
  }

  /**
   * A database whose relay user may do everything itself: stream ({@code REPLICATION}), create the
   * publication (it owns the outbox table and may create in the database) and its tables.
   *
   * @param server the server
   * @return the database
   */
  static OutboxDatabase selfServing(PostgresServer server) {
    OutboxDatabase db = OutboxDatabase.on(server);
    db.admin(
        "ALTER ROLE " + db.relayUser() + " REPLICATION",
        "ALTER TABLE outbox_events OWNER TO " + db.relayUser(),
        "GRANT CREATE ON DATABASE " + db.name() + " TO " + db.relayUser(),
        "GRANT CREATE ON SCHEMA public TO " + db.relayUser());
    return db;
  }

  /**
   * A database set up by an operator as {@code config/postgresql/relay-grants.sql} says: the relay
   * user has {@code REPLICATION}, {@code SELECT} on the outbox table and its position and
   * leadership tables and {@code SELECT} on the hand-off records, created from {@code
   * config/postgresql/relay-storage.sql}, and the publication of {@code relayName} exists; the
   * relay creates nothing but its slot.
   *
   * @param server the server
   * @param relayName the relay's name
   * @return the database
   */
  static OutboxDatabase operatorMade(PostgresServer server, String relayName) {
    OutboxDatabase db = OutboxDatabase.on(server);
    db.admin(
        io.outboxrelay.testsupport.stack.ProjectFiles.sqlStatements(
                "config/postgresql/relay-storage.sql")
            .toArray(String[]::new));
    db.admin(
        "ALTER ROLE " + db.relayUser() + " REPLICATION",
        "GRANT SELECT, INSERT, DELETE ON outbox_relay_offsets TO " + db.relayUser(),
        "GRANT SELECT, INSERT, UPDATE ON outbox_relay_leases TO " + db.relayUser(),
        "GRANT SELECT ON outbox_relay_handoffs TO " + db.relayUser(),
        PostgresReplication.createPublicationSql(relayName, "public.outbox_events"));
    return db;
  }
}
