package io.outboxrelay.relay.source.polling;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.testing.InProcessRun;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelayRun;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.stack.LocalStack;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay refuses a polling configuration or table it cannot work with: exit 2, one line each.
 */
class PollingStartupChecksIT {

  @TempDir Path dir;

  private RelayRun exits(String name, int code, String... args) {
    RelayRun relay = InProcessRun.start(name, dir, args);
    assertThat(relay.waitFor(Duration.ofSeconds(90))).as(relay.log()).isEqualTo(code);
    return relay;
  }

  /** A polling configuration of {@code db} against the shared test stack's Kafka. */
  private static RelaySettings settings(OutboxDatabase db, String name) {
    return RelaySettings.polling(db, LocalStack.shared().kafka().bootstrapServers(), name);
  }

  /** Runs the relay on the settings, written to {@code name.properties}, and expects exit 2. */
  private RelayRun refused(String name, RelaySettings settings) {
    Path config = settings.writeTo(dir.resolve(name + ".properties"));
    return exits(name, 2, "run", "--config", config.toString());
  }

  private static OutboxDatabase database() {
    return OutboxDatabase.forPolling();
  }

  @Test
  void refusesALeaseTooShortToRenewAndABatchSizeOfZero() {
    try (OutboxDatabase db = database()) {
      RelayRun relay =
          refused(
              "badlease",
              RelaySettings.polling(db, "127.0.0.1:9092", "badlease")
                  .with("polling.lease", "1s")
                  .with("polling.batch.size", "0"));

      assertThat(relay.log())
          .contains("(2 problems)")
          .contains("polling.lease: must be between 2s and 1d, got 1s")
          .contains("polling.batch.size: must be between 1 and 10000, got 0");
    }
  }

  @Test
  void refusesAnUnknownModeInTheFileAndOnTheCommandLine() {
    try (OutboxDatabase db = database()) {
      Path config =
          RelaySettings.polling(db, "127.0.0.1:9092", "badmode")
              .with("mode", "streaming")
              .writeTo(dir.resolve("mode.properties"));

      assertThat(exits("badmode-file", 2, "run", "--config", config.toString()).log())
          .contains("mode: 'streaming' is not one of cdc|polling");
      assertThat(
              exits("badmode-cli", 2, "run", "--config", config.toString(), "--mode", "batch")
                  .log())
          .contains("Invalid value for option '--mode'");
    }
  }

  @Test
  void explainsTheMigrationWhenTheTableLacksLastErrorAndTheClaimIndexes() {
    try (OutboxDatabase db = database()) {
      db.admin(
          "ALTER TABLE outbox_events DROP COLUMN last_error",
          "ALTER TABLE outbox_events DROP INDEX ix_outbox_events_status_id",
          "ALTER TABLE outbox_events DROP INDEX ix_outbox_events_aggregate");
      RelayRun relay = refused("nolasterror", settings(db, "nolasterror"));

      assertThat(relay.log())
          .contains("table outbox_events has no last_error column")
          .contains(
              "table outbox_events has no index ix_outbox_events_status_id (status, id), which"
                  + " polling claims walk")
          .contains(
              "table outbox_events has no index ix_outbox_events_aggregate (aggregate_type,"
                  + " aggregate_id, status, id), which the ordering checks read")
          .contains("config/mysql/migrations/001-add-last-error.sql");
    }
  }

  @Test
  void refusesAnUnknownUserOnPostgresqlWithExitTwoAndNoStackTrace() {
    // The local PostgreSQL trusts connections from 127.0.0.1, so it ignores a wrong password; an
    // unknown role is refused the same way (SQLSTATE 28000 instead of 28P01).
    try (OutboxDatabase db = OutboxDatabase.postgres()) {
      RelayRun relay =
          refused("pgnouser", settings(db, "pgnouser").with("source.user", "no_such_role"));

      assertThat(relay.log())
          .contains(
              "startup check failed: postgresql "
                  + db.host()
                  + ":"
                  + db.port()
                  + "/"
                  + db.name()
                  + " refused user 'no_such_role' (wrong password, or no such user for this host):"
                  + " check source.user and source.password");
      assertThat(relay.stackTraceLines()).as(relay.log()).isEmpty();
    }
  }

  @Test
  void refusesAnUnknownDatabaseOnMariaDbWithExitTwo() {
    try (OutboxDatabase db = database()) {
      RelayRun relay = refused("nodb", settings(db, "nodb").with("source.database", "no_such_db"));

      assertThat(relay.log()).contains("startup check failed: ").contains("no_such_db");
      assertThat(relay.stackTraceLines()).as(relay.log()).isEmpty();
    }
  }

  @Test
  void refusesOutboxColumnsOfATypeTheRelayCannotReadOnMariaDb() {
    try (OutboxDatabase db = database()) {
      db.admin(
          "ALTER TABLE outbox_events MODIFY event_id BINARY(16) NOT NULL,"
              + " MODIFY aggregate_id INT NOT NULL, MODIFY payload BLOB NOT NULL");
      RelayRun relay = refused("mytypes", settings(db, "mytypes"));

      assertThat(relay.log())
          .contains(
              "startup check failed: column outbox_events.event_id is binary(16), which is not"
                  + " text: make it CHAR(36) as in config/mysql/outbox-schema.sql")
          .contains(
              "startup check failed: column outbox_events.aggregate_id is int(11), which is not"
                  + " text: make it VARCHAR(255)")
          .contains(
              "startup check failed: column outbox_events.payload is blob, which is not text:"
                  + " make it JSON or LONGTEXT")
          .doesNotContain("column outbox_events.id ")
          .doesNotContain("column outbox_events.event_type");
    }
  }

  /**
   * Regression: a sequence column of integers that rows share passed every check, and polling
   * marked PUBLISHED every row sharing a value with one it published (1,487 of 2,420 events that
   * never reached Kafka). A unique index of which it is only one column does not make it unique.
   */
  @Test
  void refusesASequenceColumnThatIsNotUniqueOnMariaDb() {
    try (OutboxDatabase db = database()) {
      db.admin(
          "ALTER TABLE outbox_events ADD COLUMN batch_no BIGINT NOT NULL DEFAULT 0,"
              + " ADD UNIQUE KEY ux_batch_and_id (batch_no, id), ADD KEY ix_batch_no (batch_no)");
      RelayRun relay =
          refused("myseq", settings(db, "myseq").with("source.column.sequence", "batch_no"));

      assertThat(relay.log().lines().filter(l -> l.contains("startup check failed")))
          .as(relay.log())
          .hasSize(1);
      assertThat(relay.log())
          .contains(
              "startup check failed: source.column.sequence=batch_no is neither the primary key of"
                  + " outbox_events nor the only column of a unique index")
          .contains("CREATE UNIQUE INDEX ux_outbox_events_batch_no ON outbox_events (batch_no))");
      assertThat(relay.stackTraceLines()).as(relay.log()).isEmpty();
    }
  }

  @Test
  void refusesASequenceColumnThatIsNotUniqueOnPostgresql() {
    try (OutboxDatabase db = OutboxDatabase.postgres()) {
      db.admin(
          "ALTER TABLE outbox_events ADD COLUMN batch_no bigint NOT NULL DEFAULT 0",
          "CREATE UNIQUE INDEX ux_batch_partial ON outbox_events (batch_no) WHERE batch_no > 0",
          "CREATE INDEX ix_batch_no ON outbox_events (batch_no)");
      RelayRun relay =
          refused("pgseq", settings(db, "pgseq").with("source.column.sequence", "batch_no"));

      assertThat(relay.log())
          .contains(
              "startup check failed: source.column.sequence=batch_no is neither the primary key of"
                  + " outbox_events nor the only column of a unique index");
      assertThat(relay.stackTraceLines()).as(relay.log()).isEmpty();
    }
  }

  @Test
  void acceptsASequenceColumnWithAUniqueIndexOnPostgresqlAndMariaDb() {
    try (OutboxDatabase pg = OutboxDatabase.postgres();
        OutboxDatabase my = database()) {
      pg.admin(
          "ALTER TABLE outbox_events ADD COLUMN batch_no bigint NOT NULL DEFAULT 0",
          "CREATE UNIQUE INDEX ux_batch_no ON outbox_events (batch_no)");
      my.admin(
          "ALTER TABLE outbox_events ADD COLUMN batch_no BIGINT NOT NULL DEFAULT 0,"
              + " ADD UNIQUE KEY ux_batch_no (batch_no)");
      for (OutboxDatabase db : new OutboxDatabase[] {pg, my}) {
        String name = db == pg ? "pguniqseq" : "myuniqseq";
        Path config =
            settings(db, name)
                .with("source.column.sequence", "batch_no")
                .writeTo(dir.resolve(name + ".properties"));
        try (RelayRun relay = InProcessRun.run(name, dir, config)) {
          relay.awaitReady();
          relay.terminate();
          assertThat(relay.waitFor(Duration.ofSeconds(60))).as(relay.log()).isZero();
          assertThat(relay.log()).doesNotContain("startup check failed");
        }
      }
    }
  }

  @Test
  void refusesOutboxColumnsOfATypeTheRelayCannotReadOnPostgresql() {
    try (OutboxDatabase db = OutboxDatabase.postgres()) {
      db.admin(
          "ALTER TABLE outbox_events ALTER COLUMN id DROP IDENTITY",
          "ALTER TABLE outbox_events ALTER COLUMN id TYPE text,"
              + " ALTER COLUMN aggregate_id TYPE integer USING 0,"
              + " ALTER COLUMN payload TYPE bytea USING convert_to(payload::text, 'UTF8')");
      RelayRun relay = refused("pgtypes", settings(db, "pgtypes"));

      assertThat(relay.log())
          .contains(
              "startup check failed: column outbox_events.id is text, which is not an integer:"
                  + " make it bigint GENERATED ALWAYS AS IDENTITY as in"
                  + " config/postgresql/outbox-schema.sql")
          .contains(
              "startup check failed: column outbox_events.aggregate_id is integer, which is not"
                  + " text: make it varchar(255)")
          .contains(
              "startup check failed: column outbox_events.payload is bytea, which is not text:"
                  + " make it jsonb, json or text")
          .doesNotContain("column outbox_events.event_id");
    }
  }

  @Test
  void namesTheKeyAndTheColumnOfEveryMappedColumnTheTableLacksOnPostgresql() {
    try (OutboxDatabase db = OutboxDatabase.postgres()) {
      RelayRun relay =
          refused(
              "pgmapping",
              settings(db, "pgmapping")
                  .with("source.column.event.id", "id_of_event")
                  .with("source.column.sequence", "relay_seq"));

      assertThat(relay.log())
          .contains(
              "startup check failed: table outbox_events has no column relay_seq"
                  + " (source.column.sequence, the row sequence): create it as in"
                  + " config/postgresql/outbox-schema.sql, or set source.column.sequence to the"
                  + " column that holds the row sequence")
          .contains(
              "startup check failed: table outbox_events has no column id_of_event"
                  + " (source.column.event.id, the event id)");
      assertThat(relay.stackTraceLines()).as(relay.log()).isEmpty();
    }
  }

  @Test
  void refusesAHeadersColumnThatIsNotTextOrJsonOnMariaDb() {
    try (OutboxDatabase db = database()) {
      db.admin("ALTER TABLE outbox_events MODIFY headers INT NULL");
      RelayRun relay = refused("hdrtype", settings(db, "hdrtype"));

      assertThat(relay.log())
          .contains(
              "startup check failed: column outbox_events.headers is int(11), which is not text or"
                  + " JSON: make it JSON NULL (or LONGTEXT) as in config/mysql/outbox-schema.sql");
    }
  }
}
