package io.outboxrelay.testsupport.database;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.PostgresService;
import org.junit.jupiter.api.Test;

/**
 * {@link ScratchDatabase#queryValue} keeps its connection between queries (tests poll with it every
 * few milliseconds), and still answers once the server restarted under it.
 */
class ScratchDatabaseIT {

  @Test
  void queriesOnMariaDbShareAConnectionAndSurviveARestartOfTheServer() {
    try (MariaDbServer server = MariaDbServer.builder().start();
        ScratchDatabase db = ScratchDatabase.onMariaDb(server, "scratch")) {
      Object first = db.queryValue("SELECT CONNECTION_ID()");
      assertThat(db.queryValue("SELECT CONNECTION_ID()")).isEqualTo(first);
      assertThat(db.queryValue("SELECT DATABASE()")).isEqualTo(db.name());

      server.kill();
      server.start();

      assertThat(db.queryValue("SELECT DATABASE()")).isEqualTo(db.name());
      assertThat(db.queryValue("SELECT CONNECTION_ID()")).isNotEqualTo(first);
    }
  }

  @Test
  void aFailedQueryIsReportedAndTheNextOneAnswers() {
    try (ScratchDatabase db = ScratchDatabase.onPostgres(PostgresService.local(), "scratch")) {
      Object backend = db.queryValue("SELECT pg_backend_pid()");
      assertThat(db.queryValue("SELECT pg_backend_pid()")).isEqualTo(backend);

      assertThatThrownBy(() -> db.queryValue("SELECT * FROM no_such_table"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("SELECT * FROM no_such_table");
      assertThat(db.queryValue("SELECT current_database()")).isEqualTo(db.name());
    }
  }

  @Test
  void closeDropsAPostgresDatabaseWhoseQueryConnectionIsStillOpen() {
    PostgresService service = PostgresService.local();
    String name;
    try (ScratchDatabase db = ScratchDatabase.onPostgres(service, "scratch")) {
      name = db.name();
      assertThat(db.queryValue("SELECT 1")).isEqualTo(1);
    }
    try (ScratchDatabase other = ScratchDatabase.onPostgres(service, "scratch")) {
      assertThat(
              other.queryValue("SELECT count(*) FROM pg_database WHERE datname = '" + name + "'"))
          .isEqualTo(0L);
    }
  }
}
