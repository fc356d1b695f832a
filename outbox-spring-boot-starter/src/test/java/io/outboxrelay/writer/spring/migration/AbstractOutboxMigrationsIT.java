package io.outboxrelay.writer.spring.migration;

import static org.assertj.core.api.Assertions.assertThat;

import io.outboxrelay.idempotency.EventRef;
import io.outboxrelay.idempotency.IdempotentProcessor;
import io.outboxrelay.idempotency.Outcome;
import io.outboxrelay.writer.spring.OrderApplication;
import io.outboxrelay.writer.spring.OrderApplication.OrderService;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The shipped migrations in a real Spring Boot application on a real database: on an empty
 * database, beside the application's own Flyway migrations, they create the tables exactly as the
 * project's {@code config/} DDL does (compared in the catalog with tables created from those
 * files); they upgrade tables of older versions; and the writer and the idempotent consumer then
 * work on the tables. A subclass supplies the database.
 */
public abstract class AbstractOutboxMigrationsIT {

  private static final List<String> TABLES =
      List.of("outbox_events", "processed_events", "processed_aggregate_versions");

  /** JPA is on the test classpath for other tests; these run on JDBC alone. */
  private static final String NO_HIBERNATE =
      "spring.autoconfigure.exclude="
          + "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration,"
          + "org.springframework.boot.autoconfigure.orm.jpa.HibernateJpaAutoConfiguration";

  /** The application's own migrations: V1 creates orders, V2 adds a column. */
  private static final String APPLICATION_FLYWAY =
      "spring.flyway.locations=classpath:io/outboxrelay/writer/spring/migration/app";

  /** An empty database. */
  protected abstract MigrationDatabase newDatabase();

  private static ConfigurableApplicationContext start(MigrationDatabase db, String... properties) {
    List<String> defaults = new ArrayList<>(db.dataSourceProperties());
    defaults.add(NO_HIBERNATE);
    // As arguments, these win over the test classpath's application.properties (which turns the
    // application's Flyway off for the other tests).
    List<String> arguments = new ArrayList<>(List.of("--outbox.migrations.enabled=true"));
    for (String property : properties) {
      arguments.add("--" + property);
    }
    return new SpringApplicationBuilder(OrderApplication.class)
        .web(WebApplicationType.NONE)
        .properties(defaults.toArray(String[]::new))
        .run(arguments.toArray(String[]::new));
  }

  private static MigrationDatabase reference(MigrationDatabase reference) {
    reference.runConfigFile("outbox-schema.sql");
    reference.runConfigFile("processed-events.sql");
    return reference;
  }

  @Test
  void createsTheTablesOfTheConfigDdlAfterTheApplicationsOwnFlywayMigrations() {
    try (MigrationDatabase db = newDatabase();
        MigrationDatabase reference = reference(newDatabase())) {
      try (ConfigurableApplicationContext app =
          start(db, "spring.flyway.enabled=true", APPLICATION_FLYWAY)) {
        Map<String, List<String>> expected = reference.describe(TABLES, true);
        assertThat(expected.get("outbox_events"))
            .anySatisfy(row -> assertThat(row).startsWith("column | headers |"))
            .anySatisfy(row -> assertThat(row).startsWith("index | ix_outbox_events_aggregate"));
        assertThat(db.describe(TABLES, true)).isEqualTo(expected);
        // The application's Flyway ran first, on the empty database (it refuses a database that
        // holds tables but not its history); the starter's sets then started from a baseline.
        assertThat(db.versions("flyway_schema_history")).containsExactly("1", "2");
        assertThat(db.versions("outbox_schema_history")).containsExactly("0", "1", "2", "3");
        assertThat(db.versions("processed_events_schema_history")).containsExactly("0", "1", "2");

        writesAndProcessesAnEvent(app, db);
      }

      try (ConfigurableApplicationContext restarted =
          start(db, "spring.flyway.enabled=true", APPLICATION_FLYWAY)) {
        assertThat(db.versions("outbox_schema_history")).containsExactly("0", "1", "2", "3");
        assertThat(db.versions("processed_events_schema_history")).containsExactly("0", "1", "2");
        restarted.getBean(OrderService.class).place("o-after-restart");
        assertThat(db.count("outbox_events")).isEqualTo(2);
      }
    }
  }

  @Test
  void upgradesTablesCreatedBeforeAggregateVersionsHeadersAndPayloadHashes() {
    try (MigrationDatabase db = newDatabase();
        MigrationDatabase reference = reference(newDatabase())) {
      db.runConfigFileWithout("outbox-schema.sql", "aggregate_version", "headers");
      db.runConfigFileWithout("processed-events.sql", "payload_hash");
      db.execute(
          "CREATE TABLE orders (id VARCHAR(64) PRIMARY KEY)",
          "INSERT INTO outbox_events (event_id, aggregate_type, aggregate_id, event_type, payload)"
              + " VALUES ('0190a0b1-0000-7000-8000-000000000001', 'order', 'o-0', 'OrderPlaced',"
              + " '{}')",
          "INSERT INTO processed_events (consumer_group, event_id) VALUES ('billing', 'e-0')");
      assertThat(db.describe(List.of("outbox_events"), false))
          .isNotEqualTo(reference.describe(List.of("outbox_events"), false));

      try (ConfigurableApplicationContext app = start(db)) {
        // The columns are added last, so their positions differ from a new table's.
        assertThat(db.describe(TABLES, false)).isEqualTo(reference.describe(TABLES, false));
        assertThat(db.versions("outbox_schema_history")).containsExactly("0", "1", "2", "3");
        assertThat(db.count("outbox_events WHERE aggregate_id = 'o-0'")).isEqualTo(1);
        assertThat(db.count("processed_events WHERE event_id = 'e-0'")).isEqualTo(1);

        writesAndProcessesAnEvent(app, db);
      }
    }
  }

  @Test
  void createsOnlyTheSetsAskedForWithoutAnyFlywayOfTheApplication() {
    try (MigrationDatabase db = newDatabase()) {
      db.execute("CREATE TABLE orders (id VARCHAR(64) PRIMARY KEY)");

      try (ConfigurableApplicationContext app =
          start(db, "outbox.migrations.processed-events=false")) {
        assertThat(db.hasTable("outbox_events")).isTrue();
        assertThat(db.hasTable("processed_events")).isFalse();
        assertThat(db.hasTable("processed_events_schema_history")).isFalse();
        assertThat(db.hasTable("flyway_schema_history")).isFalse();
        assertThat(db.versions("outbox_schema_history")).containsExactly("0", "1", "2", "3");
        String eventId = app.getBean(OrderService.class).place("o-1");
        assertThat(db.count("outbox_events WHERE " + db.eventIdIs(eventId))).isEqualTo(1);
      }
    }
  }

  /** The writer appends (with version and headers) and a processor with the conflict check runs. */
  private static void writesAndProcessesAnEvent(
      ConfigurableApplicationContext app, MigrationDatabase db) {
    String orderId = "o-" + System.nanoTime();
    String eventId = app.getBean(OrderService.class).place(orderId);

    String where = " FROM outbox_events WHERE " + db.eventIdIs(eventId);
    assertThat(db.query("SELECT aggregate_id" + where)).isEqualTo(orderId);
    assertThat(((Number) db.query("SELECT aggregate_version" + where)).longValue()).isEqualTo(1);
    assertThat(db.query("SELECT headers" + where).toString()).contains("\"tenant\"", "\"acme\"");
    assertThat(db.query("SELECT status" + where).toString().trim()).isEqualTo("PENDING");

    IdempotentProcessor processor =
        IdempotentProcessor.builder(app.getBean(DataSource.class), "billing")
            .conflictCheck()
            .build();
    EventRef event = EventRef.of(eventId).withPayload("{}".getBytes(StandardCharsets.UTF_8));
    assertThat(processor.process(event, connection -> {})).isEqualTo(Outcome.PROCESSED);
    assertThat(processor.process(event, connection -> {})).isEqualTo(Outcome.DUPLICATE);
    assertThat(
            db.count(
                "processed_events WHERE event_id = '" + eventId + "' AND payload_hash IS NOT NULL"))
        .isEqualTo(1);
  }
}
