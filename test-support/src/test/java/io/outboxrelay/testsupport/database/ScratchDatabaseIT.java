package io.outboxrelay.testsupport.database;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.PostgresService;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * {@link ScratchDatabase#queryValue} keeps its connection between queries (tests poll with it every
 * few milliseconds), and still answers once the server restarted under it.
 */
class ScratchDatabaseIT {

  @Test
  void queriesOnMariaDbShareAConnectionSurviveARestartOfTheServerAndEndItOnClose()
      throws Exception {
    try (MariaDbServer server = MariaDbServer.builder().start()) {
      Object kept;
      try (ScratchDatabase db = ScratchDatabase.onMariaDb(server, "scratch")) {
        Object first = db.queryValue("SELECT CONNECTION_ID()");
        assertThat(db.queryValue("SELECT CONNECTION_ID()")).isEqualTo(first);
        assertThat(db.queryValue("SELECT DATABASE()")).isEqualTo(db.name());

        server.kill();
        server.start();

        assertThat(db.queryValue("SELECT DATABASE()")).isEqualTo(db.name());
        kept = db.queryValue("SELECT CONNECTION_ID()");
        assertThat(kept).isNotEqualTo(first);
      }
      // Dropping a MariaDB database leaves its sessions open: close() ends the kept one itself.
      try (Connection admin = server.adminConnection();
          Statement st = admin.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " + kept)) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(1)).as("the kept connection after close()").isZero();
      }
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
