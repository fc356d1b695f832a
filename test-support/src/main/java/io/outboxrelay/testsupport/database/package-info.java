/**
 * Throw-away databases for tests: {@link io.outboxrelay.testsupport.database.ScratchDatabase}
 * creates a database with a unique name on the shared private MariaDB, on another MySQL-family
 * server or on the machine's PostgreSQL service, runs the project's DDL files into it, and drops it
 * with the accounts made for it. Every fixture that needs a database of its own (the outbox
 * databases, the consumer's idempotency databases) is built on it.
 */
package io.outboxrelay.testsupport.database;
