package io.outboxrelay.writer;

/** The writer's contract on PostgreSQL (the machine's local service). */
class PostgresWriterContractIT extends AbstractWriterContractIT {

  @Override
  protected WriterDatabase newDatabase() {
    return WriterDatabase.postgres();
  }
}
