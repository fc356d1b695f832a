package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.stack.KafkaConnectWorker;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import java.nio.file.Path;
import java.util.Map;

/**
 * The peers group's database: the bench's shared MariaDB 10.11 (binlog {@code ROW}/{@code FULL}),
 * Debezium's MariaDB connector with its schema history in a file.
 *
 * @param server the bench's MariaDB
 */
record MariaDbPeerSource(MariaDbServer server) implements PeerSource {

  @Override
  public long databasePid() {
    return server.pid();
  }

  @Override
  public String label() {
    return "MariaDB 10.11";
  }

  @Override
  public String debeziumConnector() {
    return "MariaDB connector";
  }

  @Override
  public OutboxDatabase newDatabase() {
    return OutboxDatabase.on(server);
  }

  @Override
  public void awaitQuiet(String before) throws Exception {
    Quiet.await(server, before);
  }

  @Override
  public RelaySettings relaySettings(OutboxDatabase db, String bootstrapServers, String name) {
    return RelaySettings.cdc(db, bootstrapServers, name);
  }

  @Override
  public Map<String, String> debeziumSettings(OutboxDatabase db, String name, Path dir) {
    Map<String, String> c = DebeziumSettings.mariaDbConnector(db, name);
    c.put("schema.history.internal", "io.debezium.storage.file.history.FileSchemaHistory");
    c.put("schema.history.internal.file.filename", dir.resolve("schema-history.dat").toString());
    return c;
  }

  @Override
  public String debeziumCapturingLine() {
    return KafkaConnectWorker.BINLOG_CONNECTED;
  }

  @Override
  public boolean hasConnectPlugin() {
    return true;
  }
}
