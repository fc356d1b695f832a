/**
 * Outbox fixtures shared by the relay's integration tests, the Connect transform's, the demo and
 * the benchmark, with none of the relay's classes: outbox databases created from the project's
 * {@code config/} files ({@link io.outboxrelay.testsupport.outbox.OutboxDatabase}), events and the
 * ways an application writes them ({@link io.outboxrelay.testsupport.outbox.RawOutboxInserts},
 * {@link io.outboxrelay.testsupport.outbox.SteadyWriter}), a ledger that checks what reached Kafka
 * ({@link io.outboxrelay.testsupport.outbox.Ledger}, {@link
 * io.outboxrelay.testsupport.outbox.TestTopics}), relay settings as plain keys ({@link
 * io.outboxrelay.testsupport.outbox.RelaySettings}) and the relay's distribution as a child process
 * ({@link io.outboxrelay.testsupport.outbox.RelayProcess}).
 */
package io.outboxrelay.testsupport.outbox;
