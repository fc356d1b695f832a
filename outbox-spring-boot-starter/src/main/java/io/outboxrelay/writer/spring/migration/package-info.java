/**
 * The outbox table's and the idempotent consumer's tables, created and upgraded at startup by the
 * Flyway migrations the starter ships, when the application sets {@code
 * outbox.migrations.enabled=true} ({@link
 * io.outboxrelay.writer.spring.migration.OutboxMigrationsProperties}). Each set of migrations keeps
 * its own Flyway history table, so its versions never meet the application's own, and runs after
 * the application's Flyway, Liquibase or {@code spring.sql.init} and before the beans that use the
 * database.
 */
package io.outboxrelay.writer.spring.migration;
