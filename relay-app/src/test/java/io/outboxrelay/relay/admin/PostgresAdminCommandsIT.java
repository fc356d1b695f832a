package io.outboxrelay.relay.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.SourceDatabase;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import org.junit.jupiter.api.Test;

/** The operator commands on the machine's PostgreSQL. */
class PostgresAdminCommandsIT extends AbstractAdminCommandsIT {

  @Override
  protected SourceDatabase newDatabase() {
    return OutboxDatabase.postgres();
  }

  @Test
  void anEventIdThatIsNotAUuidIsABadArgument() {
    assertThat(refused("dead", "show", "--config", config, "not-a-uuid"))
        .contains("event id not-a-uuid cannot be an event id in outbox_events");
    assertThat(refused("dead", "requeue", "--config", config, "not-a-uuid"))
        .contains("event_id is a uuid column");
  }

  @Test
  void skipOnATableFromBeforeSkippedNamesTheMigrationThenWorksAfterIt() throws Exception {
    db.admin(
        "ALTER TABLE outbox_events DROP CONSTRAINT outbox_events_status_check",
        "ALTER TABLE outbox_events ADD CONSTRAINT outbox_events_status_check CHECK (status IN"
            + " ('PENDING', 'PROCESSING', 'PUBLISHED', 'DEAD')) NOT VALID");
    var before = rows();
    assertThat(refused("dead", "skip", "--config", config, dead.eventId(), "--reason", "r"))
        .contains(
            "does not allow status SKIPPED yet: run"
                + " config/postgresql/migrations/003-allow-skipped-status.sql");
    assertThat(rows()).isEqualTo(before);

    db.admin(
        ProjectFiles.sqlStatements("config/postgresql/migrations/003-allow-skipped-status.sql")
            .toArray(String[]::new));
    ok("dead", "skip", "--config", config, dead.eventId(), "--reason", "r");
    assertThat(status(dead)).isEqualTo("SKIPPED");
  }
}
