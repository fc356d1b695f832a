package io.outboxrelay.idempotency.kafka;

import io.outboxrelay.idempotency.testing.TestDatabase;

/** The Kafka consumer contract with PostgreSQL as the consumer's database. */
class PostgresKafkaConsumerContractIT extends AbstractKafkaConsumerContractIT {

  @Override
  protected TestDatabase newDatabase() {
    return TestDatabase.postgres("idemkafka");
  }
}
