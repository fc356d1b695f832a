package io.outboxrelay.relay.source.cdc;

import io.debezium.connector.mariadb.antlr.MariaDbAntlrDdlParser;
import io.debezium.connector.mariadb.charset.MariaDbCharsetRegistry;
import io.debezium.connector.mysql.antlr.MySqlAntlrDdlParser;
import io.debezium.connector.mysql.charset.MySqlCharsetRegistry;
import io.debezium.relational.Tables;
import io.debezium.relational.ddl.DdlParser;
import io.outboxrelay.relay.source.SqlDialect;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parses statements shaped like the outbox table's schema history with Debezium's DDL parser, on a
 * thread of its own, while the relay runs its startup checks.
 *
 * <p>Why: the ANTLR parser builds its prediction tables on first use, and they are shared by every
 * parser of the grammar in the JVM. The engine's first use is at start, on the path to the first
 * event: the schema history's recovery, which took 0.8 s of a 2.5 s start. Done here, in parallel
 * with the checks' database round trips, most of that work is over by then.
 *
 * <p>What the engine parses depends on the start. A restart recovers the outbox table from the
 * history's stored description and parses one statement, the snapshot's {@code SET
 * character_set_server=...} ({@link #RECOVERY}; 268 ms cold, most of it the parser's first use).
 * Only a first start, with no stored position, takes the schema snapshot that parses the table's
 * {@code CREATE TABLE} and the statements around it ({@link #SNAPSHOT}; 160 ms cold). The warm-up
 * parses the first at once and the second only once {@link #snapshotAhead} says this start takes a
 * snapshot, so a restart does not spend that CPU beside its checks. A failure here changes nothing
 * but that time: it is logged at DEBUG.
 *
 * <p>Thread-safe: {@link #snapshotAhead} may be called from any thread, once or more (the first
 * call counts).
 */
final class DdlParserWarmUp {

  private static final Logger LOG = LoggerFactory.getLogger(DdlParserWarmUp.class);

  /** What a restart's schema history recovery parses. */
  static final List<String> RECOVERY =
      List.of("SET character_set_server=utf8mb4, collation_server=utf8mb4_general_ci");

  /**
   * What a first start's schema snapshot parses besides: MariaDB's SHOW CREATE TABLE of the shipped
   * DDL, and the statements Debezium stores around it.
   */
  static final List<String> SNAPSHOT =
      List.of(
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

  /**
   * How long the warm-up waits to learn whether a snapshot follows; a start whose checks take
   * longer (or fail) gets no snapshot warm-up.
   */
  static final Duration DECISION_WAIT = Duration.ofSeconds(30);

  private final CompletableFuture<Boolean> snapshot = new CompletableFuture<>();

  private DdlParserWarmUp() {}

  /**
   * Starts the warm-up on a daemon thread and returns at once.
   *
   * @param dialect the source's database, which picks the grammar
   * @return the warm-up, to be told whether a snapshot follows
   */
  static DdlParserWarmUp start(SqlDialect dialect) {
    DdlParserWarmUp warmUp = new DdlParserWarmUp();
    if (!dialect.hasBinlog()) {
      return warmUp; // PostgreSQL's connector parses no DDL
    }
    Thread t = new Thread(() -> warmUp.run(dialect), "cdc-ddl-parser-warm-up");
    t.setDaemon(true);
    t.start();
    return warmUp;
  }

  /**
   * Says whether this start takes a schema snapshot (no stored position), so that the warm-up also
   * parses what the snapshot parses.
   *
   * @param ahead true for a first start
   */
  void snapshotAhead(boolean ahead) {
    snapshot.complete(ahead);
  }

  private void run(SqlDialect dialect) {
    long start = System.nanoTime();
    try {
      DdlParser parser = parser(dialect);
      Tables tables = new Tables();
      parseAll(parser, RECOVERY, tables);
      boolean ahead = snapshot.get(DECISION_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      if (ahead) {
        parseAll(parser, SNAPSHOT, tables);
      }
      LOG.debug(
          "DDL parser warmed up in {} ms (snapshot statements: {})",
          (System.nanoTime() - start) / 1_000_000,
          ahead);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.debug(
          "the DDL parser warm-up did not learn whether a snapshot follows: {}", e.toString());
    } catch (RuntimeException | LinkageError e) {
      LOG.debug("the DDL parser warm-up failed: {}", e.toString());
    }
  }

  /**
   * A parser made as the engine makes its own (Debezium's {@code MariaDbDatabaseSchema}), with a
   * character set registry: without one every statement naming a character set fails in the tree
   * walk, after the parse ({@code CREATE DATABASE ... CHARSET}, the first such statement, ended the
   * warm-up before the {@code CREATE TABLE} that it is for).
   */
  static DdlParser parser(SqlDialect dialect) {
    return PARSERS.get(dialect.connectorType()).get();
  }

  /** The grammar of each of Debezium's connector types. */
  private static final Map<String, Supplier<DdlParser>> PARSERS =
      Map.of(
          "mariadb",
          () ->
              new MariaDbAntlrDdlParser(
                  true,
                  false,
                  false,
                  Tables.TableFilter.includeAll(),
                  new MariaDbCharsetRegistry()),
          "mysql",
          () ->
              new MySqlAntlrDdlParser(
                  true, false, false, Tables.TableFilter.includeAll(), new MySqlCharsetRegistry()));

  private static void parseAll(DdlParser parser, List<String> statements, Tables tables) {
    for (String ddl : statements) {
      parser.parse(ddl, tables);
    }
  }
}
