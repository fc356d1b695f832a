package io.outboxrelay.writer.spring.migration;

import io.outboxrelay.router.Dialect;

/**
 * A set of shipped migrations: its scripts, one directory per dialect with the same version numbers
 * in each, and the Flyway history table that records them apart from the application's.
 */
enum MigrationSet {
  /** {@code outbox_events}, as {@code config/<dialect>/outbox-schema.sql}. */
  OUTBOX("outbox", "outbox_schema_history", "the outbox table"),
  /**
   * {@code processed_events} and {@code processed_aggregate_versions}, as {@code
   * config/<dialect>/processed-events.sql}.
   */
  PROCESSED_EVENTS(
      "processed-events", "processed_events_schema_history", "the idempotent consumer's tables");

  private final String directory;
  private final String historyTable;
  private final String description;

  MigrationSet(String directory, String historyTable, String description) {
    this.directory = directory;
    this.historyTable = historyTable;
    this.description = description;
  }

  /**
   * The classpath location of the scripts for a dialect. Outside {@code db/migration}, which
   * Flyway's default location would scan recursively into the application's own history.
   */
  String location(Dialect dialect) {
    return "classpath:io/outboxrelay/migration/" + directory + "/" + dialect.schemaFolder();
  }

  String historyTable() {
    return historyTable;
  }

  String description() {
    return description;
  }
}
