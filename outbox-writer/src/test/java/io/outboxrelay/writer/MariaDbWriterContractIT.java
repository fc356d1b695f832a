package io.outboxrelay.writer;

/** The writer's contract on MariaDB (the shared private server of the local stack). */
class MariaDbWriterContractIT extends AbstractWriterContractIT {

  @Override
  protected WriterDatabase newDatabase() {
    return WriterDatabase.mariaDb();
  }
}
