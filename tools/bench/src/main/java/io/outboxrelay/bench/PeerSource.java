package io.outboxrelay.bench;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import java.nio.file.Path;
import java.util.Map;

/**
 * The database a peers run reads from, chosen once per group: the peers group runs on the bench's
 * MariaDB ({@link MariaDbPeerSource}), the pg-cdc group on a private PostgreSQL ({@link
 * PostgresPeerSource}). Everything that differs between the two for the relay and for Debezium is
 * here, so that {@link PeerBench} and the pipelines ask rather than test the flavor.
 */
interface PeerSource {

  /** The database server, for the lines under the table, e.g. {@code MariaDB 10.11}. */
  String label();

  /** The database server's process id: its CPU, with its children's, is read during the load. */
  long databasePid();

  /** Debezium's connector for this database, for the lines under the table. */
  String debeziumConnector();

  /** A fresh outbox database whose relay user may do what the relay's CDC mode needs. */
  OutboxDatabase newDatabase();

  /** Waits for the server to finish the background work earlier runs left behind. */
  void awaitQuiet(String before) throws Exception;

  /** The relay's CDC settings for {@code db}: what the relay needs on this database. */
  RelaySettings relaySettings(OutboxDatabase db, String bootstrapServers, String name);

  /**
   * Debezium's connector settings for the outbox table of {@code db}, without a prefix: no snapshot
   * of the rows already there, only the columns the router reads, and the connector's own state
   * (schema history, replication slot) kept in {@code dir} or named after {@code name}.
   *
   * @param name the pipeline's name: the connector's {@code topic.prefix}
   */
  Map<String, String> debeziumSettings(OutboxDatabase db, String name, Path dir);

  /**
   * A regular expression matching the Debezium log line after which every commit is captured (the
   * binlog client connected, the replication stream started).
   */
  String debeziumCapturingLine();

  /** Whether the bench has Kafka Connect's plugin for this database (only MariaDB's). */
  boolean hasConnectPlugin();
}
