package io.outboxrelay.testsupport.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaBrokerConfigTest {

  @Test
  void rendersACombinedSingleNodeKraftBrokerOnLoopback() {
    KafkaBrokerConfig config =
        new KafkaBrokerConfig(19092, 19093, Path.of("/tmp/k/kraft"), 3, Map.of());

    assertThat(config.properties())
        .containsEntry("process.roles", "broker,controller")
        .containsEntry("node.id", "1")
        .containsEntry("controller.quorum.voters", "1@127.0.0.1:19093")
        .containsEntry("listeners", "PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093")
        .containsEntry("advertised.listeners", "PLAINTEXT://127.0.0.1:19092")
        .containsEntry("controller.listener.names", "CONTROLLER")
        .containsEntry("inter.broker.listener.name", "PLAINTEXT")
        .containsEntry("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT")
        .containsEntry("log.dirs", "/tmp/k/kraft")
        .containsEntry("offsets.topic.replication.factor", "1")
        .containsEntry("transaction.state.log.replication.factor", "1")
        .containsEntry("transaction.state.log.min.isr", "1")
        .containsEntry("share.coordinator.state.topic.replication.factor", "1")
        .containsEntry("share.coordinator.state.topic.min.isr", "1")
        .containsEntry("group.initial.rebalance.delay.ms", "0")
        .containsEntry("auto.create.topics.enable", "true")
        .containsEntry("num.partitions", "3");
    assertThat(config.renderServerProperties()).contains("\nnode.id=1\n");
  }

  @Test
  void extraBrokerPropertiesOverrideTheGeneratedOnes() {
    KafkaBrokerConfig config =
        new KafkaBrokerConfig(
            1,
            2,
            Path.of("/tmp/k"),
            3,
            Map.of("num.partitions", "1", "message.max.bytes", "2097152"));

    assertThat(config.properties())
        .containsEntry("num.partitions", "1")
        .containsEntry("message.max.bytes", "2097152");
  }

  @Test
  void logsToTheFileNamedBySystemPropertyAndNotToTheConsole() {
    String xml = KafkaBrokerConfig.renderLog4j2Xml();

    assertThat(xml)
        .contains("fileName=\"${sys:localstack.kafka.logFile}\"")
        .contains("<Root level=\"INFO\">")
        .contains("[%d] %p %m (%c)%n")
        .doesNotContain("Console");
  }
}
