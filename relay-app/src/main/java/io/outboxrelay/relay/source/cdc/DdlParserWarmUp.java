package io.outboxrelay.relay.source.cdc;

import io.debezium.connector.mariadb.antlr.MariaDbAntlrDdlParser;
import io.debezium.connector.mysql.antlr.MySqlAntlrDdlParser;
import io.debezium.relational.Tables;
import io.debezium.relational.ddl.DdlParser;
import io.outboxrelay.relay.config.SourceFlavor;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parses statements shaped like the outbox table's schema history with Debezium's DDL parser, on a
 * thread of its own, while the relay runs its startup checks.
 *
 * <p>Why: the ANTLR parser builds its prediction tables on first use, and they are shared by every
 * parser of the grammar in the JVM. The engine's first use is the schema history recovery at start
 * (a handful of statements), which took 0.8 s of a 2.5 s start, all on the path to the first event.
 * Done here, in parallel with the checks' database round trips, most of that work is over by then.
 * A failure here changes nothing but that time: it is logged at DEBUG.
 */
final class DdlParserWarmUp {

  private static final Logger LOG = LoggerFactory.getLogger(DdlParserWarmUp.class);

  /** What Debezium stores for the outbox table: MariaDB's SHOW CREATE TABLE of the shipped DDL. */
  static final List<String> STATEMENTS =
      List.of(
          "SET character_set_server=utf8mb4, collation_server=utf8mb4_general_ci",
          "DROP TABLE IF EXISTS `warm_up`.`outbox_events`",
          "DROP DATABASE IF EXISTS `warm_up`",
          "CREATE DATABASE `warm_up` CHARSET utf8mb4 COLLATE utf8mb4_general_ci",
          "USE `warm_up`",
          "CREATE TABLE `outbox_events` (\n"
              + "  `id` bigint(20) unsigned NOT NULL AUTO_INCREMENT,\n"
              + "  `event_id` char(36) NOT NULL,\n"
              + "  `aggregate_type` varchar(255) NOT NULL,\n"
              + "  `aggregate_id` varchar(255) NOT NULL,\n"
              + "  `event_type` varchar(255) NOT NULL,\n"
              + "  `payload` longtext CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL"
              + " CHECK (json_valid(`payload`)),\n"
              + "  `created_at` timestamp(6) NOT NULL DEFAULT current_timestamp(6),\n"
              + "  `status` char(10) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT"
              + " 'PENDING',\n"
              + "  `attempts` int(11) NOT NULL DEFAULT 0,\n"
              + "  `next_attempt_at` timestamp(6) NOT NULL DEFAULT current_timestamp(6),\n"
              + "  `published_at` timestamp(6) NULL DEFAULT NULL,\n"
              + "  `last_error` varchar(1000) DEFAULT NULL,\n"
              + "  PRIMARY KEY (`id`),\n"
              + "  UNIQUE KEY `ux_outbox_events_event_id` (`event_id`),\n"
              + "  KEY `ix_outbox_events_status_id` (`status`,`id`),\n"
              + "  KEY `ix_outbox_events_aggregate` (`aggregate_type`,`aggregate_id`,`status`,`id`)\n"
              + ") ENGINE=InnoDB AUTO_INCREMENT=1 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin");

  private DdlParserWarmUp() {}

  /** Starts the warm-up on a daemon thread and returns at once. */
  static void start(SourceFlavor flavor) {
    Thread t = new Thread(() -> run(flavor), "cdc-ddl-parser-warm-up");
    t.setDaemon(true);
    t.start();
  }

  private static void run(SourceFlavor flavor) {
    long start = System.nanoTime();
    try {
      DdlParser parser =
          flavor == SourceFlavor.MARIADB ? new MariaDbAntlrDdlParser() : new MySqlAntlrDdlParser();
      Tables tables = new Tables();
      for (String ddl : STATEMENTS) {
        parser.parse(ddl, tables);
      }
      LOG.debug("DDL parser warmed up in {} ms", (System.nanoTime() - start) / 1_000_000);
    } catch (RuntimeException | LinkageError e) {
      LOG.debug("the DDL parser warm-up failed: {}", e.toString());
    }
  }
}
