package io.outboxrelay.writer.spring;

/** The starter's contract on MariaDB (the shared private server of the local stack). */
public class MariaDbOutboxStarterContractIT extends AbstractOutboxStarterContractIT {

  @Override
  protected StarterDatabase newDatabase() {
    return StarterDatabase.mariaDb();
  }
}
