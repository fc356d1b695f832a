package io.outboxrelay.idempotency.kafka;

import io.outboxrelay.idempotency.testing.TestDatabase;

/** The Kafka consumer contract with MariaDB as the consumer's database. */
class MariaDbKafkaConsumerContractIT extends AbstractKafkaConsumerContractIT {

  @Override
  protected TestDatabase newDatabase() {
    return TestDatabase.mariaDb("idemkafka");
  }
}
