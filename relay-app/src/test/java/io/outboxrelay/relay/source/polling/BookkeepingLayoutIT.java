package io.outboxrelay.relay.source.polling;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.relay.config.RelayConfig;
import io.outboxrelay.relay.source.SqlDialect;
import io.outboxrelay.relay.testing.Configs;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import io.outboxrelay.testsupport.outbox.RelaySettings;
import io.outboxrelay.testsupport.outbox.SourceDatabase;
import io.outboxrelay.testsupport.stack.LocalStack;
import io.outboxrelay.testsupport.stack.MariaDbServer;
import io.outboxrelay.testsupport.stack.ProjectFiles;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Tables in the layout before migration 002 (variable-width, NULL-able bookkeeping columns and an
 * index on {@code published_at}): polling works on them, says how to migrate, and the migration
 * runs while a claim is in flight without losing it.
 */
class BookkeepingLayoutIT {

  private static final Duration LEASE = Duration.ofSeconds(60);

  @Test
  void mariaDbOldLayoutWorksIsReportedAndMigratesUnderAClaimInFlight() throws Exception {
    MariaDbServer s = LocalStack.shared().mariaDb();
    try (OutboxDatabase db = OutboxDatabase.forPolling()) {
      db.admin(
          "ALTER TABLE outbox_events MODIFY status VARCHAR(16) NOT NULL DEFAULT 'PENDING',"
              + " MODIFY claim_token CHAR(36) NULL, MODIFY processing_until TIMESTAMP(6) NULL,"
              + " ADD INDEX ix_outbox_events_published_at (published_at)");
      insert(db, "a", "a", "a", "b");
      RelayConfig config =
          RelaySettings.polling(db, "127.0.0.1:9", "layout").parsedBy(Configs::parse);
      try (Connection c = relayConnection(db)) {
        c.setAutoCommit(false);
        assertThat(
                PollingPreflight.advice(
                    c, SqlDialect.of(config.source().flavor()), config.source()))
            .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
            .contains("bookkeeping columns [status, claim_token, processing_until]")
            .contains("config/mysql/migrations/002-fixed-width-bookkeeping.sql");
        OutboxStore store = Layouts.store(c, SqlDialect.MYSQL);

        // The old layout: the heads of a and b are claimed; a's is published, b's stays in flight.
        Claim first = store.claim(100, 10, LEASE, 5, false);
        assertThat(first.events())
            .extracting(e -> e.event().aggregateId())
            .containsExactly("a", "b");
        long a1 = first.events().get(0).event().id();
        long b1 = first.events().get(1).event().id();
        assertThat(store.finish(first.token(), List.of(a1), List.of()).published())
            .containsExactly(a1);

        // The migration in one session, the application inserting after every statement.
        try (Connection admin = s.adminConnection(db.name());
            java.sql.Statement st = admin.createStatement()) {
          for (String sql :
              ProjectFiles.sqlStatements(
                  "config/mysql/migrations/002-fixed-width-bookkeeping.sql")) {
            st.execute(sql);
            insert(db, "m");
          }
        }

        assertThat(
                PollingPreflight.advice(
                    c, SqlDialect.of(config.source().flavor()), config.source()))
            .isEmpty();
        assertThat(
                PollingPreflight.check(
                    c, SqlDialect.of(config.source().flavor()), config.source(), config.polling()))
            .isEmpty();
        assertThat(
                db.adminQuery(
                    "SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = '"
                        + db.name()
                        + "' AND INDEX_NAME = 'ix_outbox_events_published_at'"))
            .hasToString("0");
        // The claim in flight survived the migration: its finish still holds.
        OutboxStore.Finish b = store.finish(first.token(), List.of(b1), List.of());
        assertThat(b.published()).containsExactly(b1);
        assertThat(b.lost()).isEmpty();
        // And the new layout claims and finishes in order: a's second event, and the head of the
        // events the application wrote during the migration.
        Claim second = store.claim(100, 10, LEASE, 5, false);
        assertThat(second.events())
            .extracting(e -> e.event().aggregateId())
            .containsExactly("a", "m");
        store.finish(
            second.token(), second.events().stream().map(e -> e.event().id()).toList(), List.of());
      }
      assertThat(db.adminQuery("SELECT COUNT(*) FROM outbox_events WHERE status = 'PUBLISHED'"))
          .hasToString("4");
      // Released rows hold no token and the time their lease ended.
      assertThat(
              db.adminQuery(
                  "SELECT COUNT(*) FROM outbox_events WHERE status = 'PUBLISHED' AND claim_token"
                      + " = '' AND processing_until <= published_at"))
          .hasToString("4");
    }
  }

  @Test
  void postgresOldLayoutWorksAndTheMigrationDropsThePublishedAtIndex() throws Exception {
    try (OutboxDatabase db = OutboxDatabase.postgres()) {
      db.admin("CREATE INDEX ix_outbox_events_published_at ON outbox_events (published_at)");
      insert(db, "a", "b");
      RelayConfig config =
          RelaySettings.polling(db, "127.0.0.1:9", "layout").parsedBy(Configs::parse);
      try (Connection c = relayConnection(db)) {
        c.setAutoCommit(false);
        assertThat(
                PollingPreflight.advice(
                    c, SqlDialect.of(config.source().flavor()), config.source()))
            .isEmpty();
        OutboxStore store = Layouts.store(c, SqlDialect.POSTGRESQL);
        Claim first = store.claim(100, 10, LEASE, 5, false);
        assertThat(first.events()).hasSize(2);
        long a1 = first.events().get(0).event().id();
        store.finish(first.token(), List.of(a1), List.of());

        db.admin(
            ProjectFiles.sqlStatements(
                    "config/postgresql/migrations/002-drop-published-at-index.sql")
                .toArray(String[]::new));

        assertThat(
                db.adminQuery(
                    "SELECT COUNT(*) FROM pg_indexes WHERE indexname ="
                        + " 'ix_outbox_events_published_at'"))
            .hasToString("0");
        long b1 = first.events().get(1).event().id();
        assertThat(store.finish(first.token(), List.of(b1), List.of()).published())
            .containsExactly(b1);
      }
      assertThat(
              db.adminQuery(
                  "SELECT COUNT(*) FROM outbox_events WHERE status = 'PUBLISHED' AND claim_token"
                      + " IS NULL AND processing_until <= published_at"))
          .hasToString("2");
    }
  }

  private static void insert(SourceDatabase db, String... aggregates) throws SQLException {
    try (Connection c = db.app();
        var ps =
            c.prepareStatement(
                db.flavor() == io.outboxrelay.testsupport.database.Flavor.POSTGRESQL
                    ? "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id,"
                        + " event_type, payload) VALUES (gen_random_uuid(), 'order', ?,"
                        + " 'Happened', '{}')"
                    : "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id,"
                        + " event_type, payload) VALUES (UUID(), 'order', ?, 'Happened', '{}')")) {
      for (String aggregate : aggregates) {
        ps.setString(1, aggregate);
        ps.executeUpdate();
      }
      c.commit();
    }
  }

  private static Connection relayConnection(SourceDatabase db) throws SQLException {
    return DriverManager.getConnection(
        db.flavor().jdbcPrefix() + db.host() + ":" + db.port() + "/" + db.name(),
        db.relayUser(),
        db.password());
  }
}
