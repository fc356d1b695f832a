package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.stack.PostgresServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The pg-cdc group's database: a private PostgreSQL ({@link PostgresServer}, {@code
 * wal_level=logical}) and Debezium's PostgreSQL connector with {@code pgoutput}. Each run's
 * database has the outbox table of {@code config/postgresql} owned by the relay user, who may
 * stream ({@code REPLICATION}) and create in the database: the relay creates its publication and
 * tables, Debezium its publication ({@code publication.autocreate.mode=filtered}: the outbox table
 * only); each creates its own replication slot, named after the run.
 *
 * @param server the private server
 */
record PostgresPeerSource(PostgresServer server) implements PeerSource {

  /** The connector's streaming loop starts: the slot exists and every later commit is decoded. */
  static final String STREAMING_STARTED = "Processing messages";

  @Override
  public long databasePid() {
    return server.pid();
  }

  @Override
  public String label() {
    try (Connection c = server.connect("postgres");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW server_version")) {
      rs.next();
      return "PostgreSQL " + rs.getString(1).split(" ")[0];
    } catch (java.sql.SQLException e) {
      return "PostgreSQL";
    }
  }

  @Override
  public String debeziumConnector() {
    return "PostgreSQL connector (pgoutput)";
  }

  @Override
  public OutboxDatabase newDatabase() {
    OutboxDatabase db = OutboxDatabase.on(server);
    db.admin(
        "ALTER ROLE " + db.relayUser() + " REPLICATION",
        "ALTER TABLE outbox_events OWNER TO " + db.relayUser(),
        "GRANT CREATE ON DATABASE " + db.name() + " TO " + db.relayUser(),
        "GRANT CREATE ON SCHEMA public TO " + db.relayUser());
    return db;
  }

  /** A checkpoint, so that no run pays for the dirty pages of the one before. */
  @Override
  public void awaitQuiet(String before) {
    long start = System.nanoTime();
    server.execute("postgres", "CHECKPOINT");
    System.err.printf(
        Locale.ROOT,
        "before %s: CHECKPOINT in %.1f s%n",
        before,
        (System.nanoTime() - start) / 1e9);
  }

  @Override
  public RelaySettings relaySettings(OutboxDatabase db, String bootstrapServers, String name) {
    return RelaySettings.cdc(db, bootstrapServers, name).without("cdc.server.id");
  }

  @Override
  public Map<String, String> debeziumSettings(OutboxDatabase db, String name, Path dir) {
    String slot = "dbz_" + name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    Map<String, String> c = new LinkedHashMap<>();
    c.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    c.put("database.hostname", db.host());
    c.put("database.port", String.valueOf(db.port()));
    c.put("database.user", db.relayUser());
    c.put("database.password", db.password());
    c.put("database.dbname", db.name());
    c.put("topic.prefix", name);
    c.put("plugin.name", "pgoutput");
    c.put("slot.name", slot);
    c.put("publication.name", slot);
    c.put("publication.autocreate.mode", "filtered");
    c.put("table.include.list", "public.outbox_events");
    c.put(
        "column.include.list",
        "public\\.outbox_events\\.(id|event_id|aggregate_type|aggregate_id|event_type|payload)");
    c.put("snapshot.mode", "no_data");
    return c;
  }

  @Override
  public String debeziumCapturingLine() {
    return STREAMING_STARTED;
  }

  @Override
  public boolean hasConnectPlugin() {
    return false;
  }
}
