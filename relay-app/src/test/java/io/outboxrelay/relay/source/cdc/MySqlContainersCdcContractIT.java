package io.outboxrelay.relay.source.cdc;

import io.outboxrelay.testsupport.database.Flavor;
import io.outboxrelay.testsupport.outbox.OutboxDatabase;
import java.sql.DriverManager;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.mysql.MySQLContainer;

/**
 * The CDC contract on MySQL 8.4 (Debezium's MySQL connector) and an Apache Kafka container. Runs
 * only where a Docker engine is available; elsewhere JUnit reports it as skipped ("Docker is not
 * available").
 */
@Testcontainers(disabledWithoutDocker = true)
class MySqlContainersCdcContractIT extends AbstractCdcContractIT {

  private static MySQLContainer mysql;
  private static KafkaContainer kafka;

  @BeforeAll
  static void startContainers() {
    mysql =
        new MySQLContainer("mysql:8.4")
            .withCommand(
                "--server-id=1",
                "--log-bin=mysql-bin",
                "--binlog-format=ROW",
                "--binlog-row-image=FULL",
                "--gtid-mode=ON",
                "--enforce-gtid-consistency=ON");
    kafka = new KafkaContainer("apache/kafka:4.1.1");
    mysql.start();
    kafka.start();
  }

  @AfterAll
  static void stopContainers() {
    if (kafka != null) {
      kafka.stop();
    }
    if (mysql != null) {
      mysql.stop();
    }
  }

  @Override
  protected OutboxDatabase newDatabase() {
    return OutboxDatabase.create(
        () -> DriverManager.getConnection(mysql.getJdbcUrl(), "root", mysql.getPassword()),
        Flavor.MYSQL,
        mysql.getHost(),
        mysql.getFirstMappedPort(),
        "%");
  }

  @Override
  protected String bootstrapServers() {
    return kafka.getBootstrapServers();
  }
}
